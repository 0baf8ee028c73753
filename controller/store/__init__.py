"""What the controller keeps on disk: the journal, the bounce ledger and the token file."""

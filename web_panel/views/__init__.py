"""The panel's blueprints: ``tables`` (public pages and streams), ``control`` (token holders), ``player``."""

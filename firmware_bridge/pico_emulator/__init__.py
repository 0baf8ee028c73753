"""The reference firmware on an emulated Raspberry Pi Pico (rp2040js under Node), for tests and benches."""

"""The bottom layer: small helpers that every other package may use and that import nothing above them."""

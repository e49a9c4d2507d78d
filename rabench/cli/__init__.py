"""Command-line interface. One module per subcommand; see ``main.py``."""

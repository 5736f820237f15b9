"""Redis checkpoint saver on plain Redis data types."""

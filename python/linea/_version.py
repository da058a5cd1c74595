"""The Linea version this package belongs to: part of every compiled
library's cache key (the tests check it against `linea-compile --version`)."""
__version__ = "0.2.0"

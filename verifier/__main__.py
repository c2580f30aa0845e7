"""``python -m verifier`` runs the command line."""

from verifier.cli import main

main()

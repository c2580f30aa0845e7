"""The PostgreSQL store: one database shared by many writers, one chain per run."""

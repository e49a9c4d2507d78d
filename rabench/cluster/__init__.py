"""Scale-out past one machine: shared state on Redis, engine work on Ray (each an implementation
of an existing small interface; in-process stays the default)."""

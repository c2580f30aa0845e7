"""Private helpers shared by the packages above: none of these names is public."""

__all__: list[str] = []

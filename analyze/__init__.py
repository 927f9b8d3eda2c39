"""analyze."""

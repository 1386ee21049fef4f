"""The analysis core: plain NumPy/SciPy, no Django. Arrays in, arrays and dataclasses out."""

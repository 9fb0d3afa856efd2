"""Small utilities (hook handles)."""

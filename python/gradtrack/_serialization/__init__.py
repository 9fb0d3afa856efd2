"""The machinery behind ``gradtrack.save`` / ``gradtrack.load`` (``serialization.py``):
torch's names and how gradtrack's objects stand for them (``torch_names``), the
writer (``writer``), the readers of torch's format (``reader``, ``unpickler``) and the
reader of the zip-of-``.npy`` files earlier gradtrack versions wrote (``npy_archive``).
Loaded on the first save or load, so ``import gradtrack`` does not pay for NumPy.
"""

"""Runners of the validation protocol, one module per FMI master (``python -m harness.runners.<master>``)."""

"""What the flows check before they act: preflight's own checks and verdicts, what the gate admits, the
scale-up's reports."""

"""A verdict's status: what the simulator concluded about a claim, by the JSON contract's
names (docs/simulator.md says what each means)."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """In the order filters offer them (`report --verdict`, the TUI's `v`)."""

    REPRODUCED = "reproduced"  # the mechanism's model predicts the claimed curve
    CONSISTENT = "consistent"  # the claim lies inside the band the model allows
    WITHIN_NOISE = "within_noise"  # an effect too small to tell from the run-to-run noise
    NOT_REPRODUCED = "not_reproduced"  # the model predicts something else
    OUTSIDE_BAND = "outside_band"  # the claim lies outside the band the model allows
    NO_MODEL = "no_model"  # nothing to judge with: the reason says what is missing

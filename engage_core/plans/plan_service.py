"""Plans themselves: list them, read one, change one (limits, features, name)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.unset import UNSET, Unset
from engage_core.kernel.validation import ErrorCollector, required_text
from engage_core.plans.entitlements import plan_by_slug
from engage_core.plans.model import (
    FEATURES,
    LIMIT_MAX,
    LIMITS,
    NAME_MAX,
    PLAN_SLUGS,
    Plan,
)
from engage_core.unit_of_work import UnitOfWorkFactory


@attrs.frozen
class PlanPatch:
    """A change to a plan (from the CLI): any subset; `limits` and `features` may name some only."""

    name: str | Unset = UNSET
    limits: Mapping[str, int] | Unset = UNSET
    features: Mapping[str, bool] | Unset = UNSET


class PlanService:
    """The plans themselves: list them, read one, change one (limits, features, name)."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    def list(self) -> Sequence[Plan]:
        """`GET /partner/plans`, ascending id."""
        with self._uow.partners(readonly=True) as uow:
            return uow.plans.list()

    def get(self, slug: str) -> Plan:
        """The plan `slug`.

        Raises :class:`.NotFound` when no plan has it."""
        with self._uow.partners(readonly=True) as uow:
            return plan_by_slug(uow, slug)

    def update(self, slug: str, patch: PlanPatch) -> Plan:
        """Change a plan; it applies at once to every workspace on it. Limits are whole numbers
        from 0 to `LIMIT_MAX`; unknown limit or feature names are a 422."""
        errors = ErrorCollector()
        name = None if patch.name is UNSET else errors.run(lambda: _name(str(patch.name)))
        limits = {} if patch.limits is UNSET else dict(patch.limits)
        features = {} if patch.features is UNSET else dict(patch.features)
        for key, value in limits.items():
            if key not in LIMITS:
                errors.errors.setdefault(f"limits.{key}", []).append("Unknown limit: " + ", ".join(LIMITS) + ".")
            elif isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= LIMIT_MAX:
                errors.errors.setdefault(f"limits.{key}", []).append(f"Must be a whole number from 0 to {LIMIT_MAX}.")
        for key in features:
            if key not in FEATURES:
                errors.errors.setdefault(f"features.{key}", []).append("Unknown feature: " + ", ".join(FEATURES) + ".")
        errors.raise_if_any()
        with self._uow.partners() as uow:
            current = plan_by_slug(uow, slug)
            enabled = {f for f in FEATURES if features.get(f, f in current.features)}
            plan = attrs.evolve(
                current,
                name=name or current.name,
                limits={**current.limits, **limits},
                features=frozenset(enabled),
            )
            uow.plans.update(plan)
            uow.commit()
        return plan


def check_plan_slug(field: str, slug: str) -> str:
    """A known plan slug, or ValidationFailed on `field`."""
    if slug not in PLAN_SLUGS:
        raise ValidationFailed.on(field, f"The {field} must be one of: " + ", ".join(PLAN_SLUGS) + ".")
    return slug


def _name(value: str) -> str:
    return required_text("name", value, max_length=NAME_MAX)

"""engage's property-testing kit (``pip install engage-platform[testing]``): Hypothesis strategies
for the inputs of the public services (:mod:`engage_testing.strategies`), for the events of the
catalogue as a webhook receiver gets them (:mod:`engage_testing.events`), and the rule state
machines of engage's own tests as bases to subclass (:mod:`engage_testing.machines`).

Only this package and tests import Hypothesis; engage itself never imports this package.
"""

"""The bundled simulator (docs/simulator.md): analytic models first
(deterministic bounds, birth–death lock chains, a closed multi-server station), a `heapq`
discrete-event engine where service-time variance and curve bends matter, and the Universal
Scalability Law reported beside any series. Pure functions of their parameters (and a seed)."""

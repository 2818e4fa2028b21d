"""The sweep engine (theory §6.1): many (grid point, draw) tasks, run anywhere, stored
as they finish, resumed after a crash.

``grid`` expands axes and TOML campaigns (``campaigns/``) into points with hash keys;
``engine`` runs the draws in-process or as batched Dask tasks on ``cluster`` (a private
mutual-TLS local cluster) or a given scheduler; ``store`` is the append-only checksummed
JSON-lines file and ``schema`` the shape every record is checked against on reading;
``report`` turns a store into per-point statistics, fits and figures, ``data`` into one
row per draw (CSV, pandas). It builds on :mod:`freege.validation.sampling` and
:mod:`freege.validation.models`, and is used by ``freege sweep``, ``freege chain
--store`` and the paper run.
"""

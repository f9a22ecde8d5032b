"""Tournaments on a Dask cluster (docs/cluster.md): every match one Dask task.

Imported only when ``--cluster`` is given: the local path never imports Dask. The modules, each
with one job:

- `options`: `ClusterOptions`, the "how to run" settings of ``--cluster`` (no Dask import);
- `version`: the arena's installed version, which every worker must share;
- `messages`: what the coordinator and the workers' tasks exchange (msgspec Structs);
- `bootstrap`: the functions and the plugin sent to workers, standard library only at the top,
  so a worker without the arena can still say so;
- `ship`: bots as content-addressed archives (made on the coordinator, unpacked on workers),
  and their builds, once per worker host;
- `task`: one match on a worker, and the check a worker passes before it plays;
- `checks`: the coordinator's judgement of a worker's report (pure);
- `connect`: the Dask client, its security, the unreachable scheduler as one line;
- `pool`: `DaskPool`, the cluster's `run(jobs, on_started, on_done)`.
"""

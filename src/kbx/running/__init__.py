"""Running a method over the suite: the runner (`runner`: selection, evaluators, resume), the one pool that spreads
evaluations over devices and jobs (`schedule`), the writer of each evaluation to the store and the progress line
(`writer`), and the Ray executor (`ray_executor`). The data flows one way: the CLI or `kbx.run` → here → the method
(`kbx.methods`, generating through `kbx.generate`) and the evaluator (`kbx.evaluation`) → the store → analysis.

Named `running` rather than `run`: `kbx.run` is the Python API's function."""

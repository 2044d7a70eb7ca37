#!/usr/bin/env python3
"""Calculon's design-space search rate on GPT-3 175B, 64 GPUs, batch 64.

Runs Calculon's own `llm-optimal-execution` (calculon-ai/calculon, the SC'23
analytical model) on the restricted space that bench/calculon/README.md
describes -- no offload, no TP/DP communication overlap, fused activation
off (-f false: GeLU input stored, as in the SeqSel paper and Blueprint),
Calculon's micro-batch early break (-m): 25,876 configurations -- and prints
how many configurations it evaluated, the wall and CPU time,
configurations per second and the best configuration it reports.

    bench/calculon/run-calculon.py --calculon /tmp/calculon [--cpus 1,2]

Options:
  --cpus 1,2         worker processes (Calculon's -c); one timed run each
  --fused MODE       Calculon's -f: false (default), true (Calculon's own
                     default: 26,372 configurations) or all (both)
  --no-mbs-break     drop -m: evaluate every micro-batch size (88,484
                     configurations with -f false or true, not 25,876)
  --count-space      also count the enumeration without evaluating it
                     (Calculon's -d), for the restricted space and for the
                     full space with every option on (about 4 s)
  --instrument       also run the search serially in one process through a
                     wrapper that counts Llm.compile/Llm.run calls and sorts
                     the rejected configurations by reason (Calculon's files
                     are not modified: its multiprocessing pool is replaced
                     by a serial one at run time)
  --python PATH      interpreter with numpy, psutil, pandas (/usr/bin/python3)

The script itself uses only the Python 3 standard library; Calculon runs in a
child process. Without a Calculon work tree, or without numpy, psutil or
pandas for the chosen interpreter (all three are imported by any Calculon
command), it prints "Calculon not available: <why>" and exits 0, so a bench
run on a machine without Calculon still succeeds.
"""

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

MODEL = 'models/gpt3-175B.json'
SYSTEM = 'systems/a100_80g.json'
NUM_PROCS = 64
MAX_BATCH = 64
DATATYPE = 'float16'
RESTRICT_FLAGS = ['--no-tp-overlap', '--no-dp-overlap']

FETCH_HELP = """\
To obtain Calculon (see bench/calculon/README.md):
  git clone https://github.com/calculon-ai/calculon /tmp/calculon
  git -C /tmp/calculon checkout caa4b11f8fe1fee3ba57adaacb7590d7deabd053
  apt-get install -y python3-numpy python3-psutil python3-pandas
then: bench/calculon/run-calculon.py --calculon /tmp/calculon"""

# Runs inside the child interpreter (PYTHONPATH = the Calculon tree) for
# --instrument: Calculon's run_command with a serial pool and counting
# wrappers around Llm.compile / Llm.run. argv: the llm-optimal-execution
# arguments; prints one JSON line prefixed by INSTRUMENT:.
INSTRUMENT_CODE = r'''
import importlib, json, logging, sys, time
import calculon
from calculon.llm import Llm
# calculon.llm's namespace shadows the submodule name: take the module itself.
oe = importlib.import_module('calculon.llm.optimal_execution')

class SerialPool:
  def __init__(self, n): pass
  def __enter__(self): return self
  def __exit__(self, *a): return False
  def starmap(self, f, it): return [f(*a) for a in it]

class SerialMP:
  Pool = SerialPool
oe.mp = SerialMP

counts = {'compile_calls': 0, 'run_calls': 0, 'good': 0,
          'rejected_network': 0, 'rejected_memory': 0,
          'rejected_other': 0}
secs = {'good': 0.0, 'rejected_network': 0.0, 'rejected_memory': 0.0,
        'rejected_other': 0.0}
orig_compile, orig_run = Llm.compile, Llm.run
state = {}

def kind(ex):
  m = str(ex)
  if m.startswith('Network tier'): return 'rejected_network'
  if m.startswith('Mem tier'): return 'rejected_memory'
  return 'rejected_other'

def compile_(self, syst, exe):
  counts['compile_calls'] += 1
  state['t0'] = time.perf_counter()
  try:
    return orig_compile(self, syst, exe)
  except Llm.Error as ex:
    k = kind(ex); counts[k] += 1; secs[k] += time.perf_counter() - state['t0']
    raise

def run_(self, syst):
  counts['run_calls'] += 1
  try:
    r = orig_run(self, syst)
  except Llm.Error as ex:
    k = kind(ex); counts[k] += 1; secs[k] += time.perf_counter() - state['t0']
    raise
  counts['good'] += 1; secs['good'] += time.perf_counter() - state['t0']
  return r

Llm.compile, Llm.run = compile_, run_

import argparse
ap = argparse.ArgumentParser()
sp = ap.add_subparsers(dest='command')
oe.OptimalExecution.create_parser(sp)
args = ap.parse_args(sys.argv[1:])
logger = logging.getLogger()
logger.addHandler(logging.StreamHandler(stream=sys.stdout))
logger.setLevel('INFO')
t0 = time.perf_counter()
rc = args.func(logger, args)
wall = time.perf_counter() - t0
print('INSTRUMENT:' + json.dumps({'rc': rc, 'wall_s': wall,
                                  'counts': counts, 'eval_s': secs}))
'''


def unavailable(why):
  print(f'Calculon not available: {why}')
  print(FETCH_HELP)
  sys.exit(0)


def check_calculon(tree, python):
  if tree is None:
    unavailable('no work tree given (--calculon DIR or $CALCULON_DIR)')
  for rel in ('bin/calculon', 'calculon/llm/optimal_execution.py', MODEL,
              SYSTEM):
    if not os.path.isfile(os.path.join(tree, rel)):
      unavailable(f'{os.path.join(tree, rel)} is missing')
  if not (os.path.isfile(python) and os.access(python, os.X_OK)) and \
     shutil.which(python) is None:
    unavailable(f'interpreter {python} not found')
  probe = subprocess.run([python, '-c', 'import numpy, psutil, pandas'],
                         capture_output=True, text=True)
  if probe.returncode != 0:
    last = (probe.stderr.strip().splitlines() or ['?'])[-1]
    unavailable(f'{python} cannot import numpy/psutil/pandas ({last}); '
                'apt-get install -y python3-numpy python3-psutil '
                'python3-pandas')


def commit_of(tree):
  try:
    top = subprocess.run(['git', '-C', tree, 'rev-parse', '--show-toplevel'],
                         capture_output=True, text=True)
    # Only the tree's own repository (not one that merely contains it).
    if top.returncode == 0 and \
       os.path.realpath(top.stdout.strip()) == os.path.realpath(tree):
      out = subprocess.run(['git', '-C', tree, 'rev-parse', 'HEAD'],
                           capture_output=True, text=True)
      if out.returncode == 0:
        return out.stdout.strip()
  except OSError:
    pass
  stamp = os.path.join(tree, 'COMMIT')
  if os.path.isfile(stamp):
    with open(stamp) as f:
      return f.read().strip()
  return 'unknown (no .git; put the hash in DIR/COMMIT)'


def no_offload_system(tree, workdir):
  """Calculon's a100_80g.json with mem2 (the offload tier) set to 0 GiB.

  llm-optimal-execution has no flag against offload: it enumerates weight,
  activation and optimizer offload exactly when the system's mem2 capacity
  is > 0. Everything else in the file is kept."""
  with open(os.path.join(tree, SYSTEM)) as f:
    syst = json.load(f)
  syst['mem2']['GiB'] = 0
  path = os.path.join(workdir, 'a100_80g_no_offload.json')
  with open(path, 'w') as f:
    json.dump(syst, f, indent=2)
  return path, syst


def loe_args(system, output, extra):
  return ['llm-optimal-execution', MODEL, str(NUM_PROCS), str(MAX_BATCH),
          DATATYPE, system, output] + extra


def children_cpu():
  r = resource.getrusage(resource.RUSAGE_CHILDREN)
  return r.ru_utime + r.ru_stime


def run_calculon(tree, python, argv):
  """Returns (process, wall seconds, CPU seconds of Calculon and its pool
  workers: user + system, waited-for descendants included)."""
  env = dict(os.environ, PYTHONPATH=tree)
  cpu0 = children_cpu()
  t0 = time.perf_counter()
  proc = subprocess.run([python, 'bin/calculon'] + argv, cwd=tree, env=env,
                        capture_output=True, text=True)
  wall = time.perf_counter() - t0
  return proc, wall, children_cpu() - cpu0


def parse_log(text):
  out = {}
  for key, pat in (('total', r'Total executions: (\d+)'),
                   ('good', r'Good executions: (\d+)'),
                   ('bad', r'Bad executions: (\d+)'),
                   ('rate', r'Calculation rate: ([0-9.]+) calcs/sec'),
                   ('best_rate', r'Best sample rate: ([0-9.eE+-]+)')):
    m = re.search(pat, text)
    if m:
      out[key] = float(m.group(1)) if key in ('rate', 'best_rate') \
        else int(m.group(1))
  return out


def describe_best(path, syst):
  with open(path) as f:
    best = json.load(f)['0']
  e, s = best['execution'], best['stats']
  nets = syst['networks']
  def net(i):
    return f'{i} (size {nets[i]["size"]}, {nets[i]["bandwidth"]} GB/s)'
  recompute = {'none': 'none', 'attn_only': 'selective (attn_only)',
               'full': 'full'}[e['activation_recompute']]
  comm = e['tensor_par_comm_type']
  lines = [
    f'  tp {e["tensor_par"]}, pp {e["pipeline_par"]}, dp {e["data_par"]}, '
    f'global batch {e["batch_size"]}, micro-batch {e["microbatch_size"]} '
    f'({e["batch_size"] // e["data_par"] // e["microbatch_size"]} '
    'micro-batches per pipeline)',
    f'  pipeline_interleaving {e["pipeline_interleaving"]}, '
    f'recompute {recompute}',
    f'  tensor_par_comm_type {comm} (sequence parallel: '
    f'{"yes" if comm == "rs_ag" else "no"}), seq_par_ag_redo '
    f'{e["seq_par_ag_redo"]}',
    f'  optimizer_sharding {e["optimizer_sharding"]} '
    f'(ZeRO-1: {"yes" if e["optimizer_sharding"] else "no"}), '
    f'fused_activation {e["fused_activation"]}',
    f'  tensor_par_net {net(e["tensor_par_net"])}, pipeline_par_net '
    f'{net(e["pipeline_par_net"])}, data_par_net {net(e["data_par_net"])}',
    f'  overlap tp {e["tensor_par_overlap"]} dp {e["data_par_overlap"]}; '
    f'offload weights {e["weight_offload"]} activations '
    f'{e["activations_offload"]} optimizer {e["optimizer_offload"]}',
    f'  batch time {s["total_time"]:.4f} s, sample rate '
    f'{s["sample_rate"]:.4f} samples/s, bubble {s["bubble_time"]:.4f} s',
    f'  memory per GPU (mem1) {s["proc_mem_tier1_cap_req"] / 2**30:.2f} GiB '
    f'({s["proc_mem_tier1_cap_req"] / 1e9:.2f} GB) of '
    f'{syst["mem1"]["GiB"]} GiB: weights '
    f'{s["weight_space"] / 2**30:.2f}, activations '
    f'{s["act_space"] / 2**30:.2f}, weight grads '
    f'{s["weight_grad_space"] / 2**30:.2f}, act grads '
    f'{s["act_grad_space"] / 2**30:.2f}, optimizer '
    f'{s["optimizer_space"] / 2**30:.2f} GiB',
    f'  efficiency: compute {s["compute_efficiency"]:.4f}, system '
    f'{s["system_efficiency"]:.4f}, total {s["total_efficiency"]:.4f}',
  ]
  return '\n'.join(lines)


def main():
  ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
  ap.add_argument('--calculon', default=os.environ.get('CALCULON_DIR'),
                  help='Calculon work tree (default: $CALCULON_DIR)')
  ap.add_argument('--python', default='/usr/bin/python3',
                  help='interpreter with numpy, psutil and pandas')
  ap.add_argument('--cpus', default='2',
                  help='comma-separated worker counts, one run each (2)')
  ap.add_argument('--fused', choices=('false', 'true', 'all'),
                  default='false',
                  help="Calculon's -f (fused activation); default false")
  ap.add_argument('--no-mbs-break', action='store_true',
                  help="drop Calculon's -m (every micro-batch size)")
  ap.add_argument('--count-space', action='store_true',
                  help='count the restricted and full enumerations (-d)')
  ap.add_argument('--instrument', action='store_true',
                  help='also a serial in-process run with call counters')
  ap.add_argument('--keep', metavar='DIR',
                  help='write the system file and outputs here and keep them')
  args = ap.parse_args()

  tree = os.path.abspath(args.calculon) if args.calculon else None
  check_calculon(tree, args.python)
  cpus = [int(c) for c in args.cpus.split(',') if c]

  workdir = args.keep or tempfile.mkdtemp(prefix='calculon-bench-')
  os.makedirs(workdir, exist_ok=True)
  system, syst = no_offload_system(tree, workdir)
  restrict = RESTRICT_FLAGS + ['-f', args.fused] + \
    ([] if args.no_mbs_break else ['-m'])

  print(f'Calculon {commit_of(tree)} at {tree}')
  print(f'model {MODEL}, system {SYSTEM} with mem2 0 GiB ({system}), '
        f'{NUM_PROCS} GPUs, max batch {MAX_BATCH}, {DATATYPE}')
  print('networks: ' + '; '.join(
    f'{i}: size {n["size"]}, {n["bandwidth"]} GB/s, must_be_filled '
    f'{n["must_be_filled"]}' for i, n in enumerate(syst['networks'])))
  print('restricted flags: ' + ' '.join(restrict) + ' (offload: off '
        'through mem2 = 0 GiB)')

  if args.count_space:
    full_sys = os.path.join(tree, SYSTEM)
    for label, sysf, extra in (
        ('restricted space, no -m (enumerated, not evaluated)', system,
         RESTRICT_FLAGS + ['-f', args.fused]),
        ('full space, every option on (a100_80g.json, defaults)', full_sys,
         []),
        ('full space with -f all (fused activation true and false)',
         full_sys, ['-f', 'all'])):
      proc, wall, _ = run_calculon(
        tree, args.python,
        loe_args(sysf, os.path.join(workdir, 'count.json'), extra + ['-d']))
      log = parse_log(proc.stdout)
      print(f'count: {label}: {log.get("total", "?")} configurations '
            f'({wall:.1f} s)')

  ok = True
  for c in cpus:
    out = os.path.join(workdir, f'best_c{c}.json')
    argv = loe_args(system, out, restrict + ['-c', str(c)])
    print(f'\n$ cd {tree} && PYTHONPATH=. {args.python} bin/calculon '
          + ' '.join(argv))
    load = os.getloadavg()[0] if hasattr(os, 'getloadavg') else float('nan')
    proc, wall, cpu = run_calculon(tree, args.python, argv)
    load_after = os.getloadavg()[0] if hasattr(os, 'getloadavg') else \
      float('nan')
    log = parse_log(proc.stdout)
    if proc.returncode != 0 or 'total' not in log:
      ok = False
      print(f'Calculon failed (exit {proc.returncode}):')
      print(proc.stdout[-2000:] + proc.stderr[-2000:])
      continue
    print(f'workers: {c}')
    print(f'configurations evaluated: {log["total"]} (good {log["good"]}, '
          f'rejected {log["bad"]})')
    print(f'wall seconds: {wall:.2f} (whole process); CPU seconds '
          f'{cpu:.2f} ({log["total"] / cpu:.2f} configurations per '
          f'CPU-second); 1-min load average {load:.2f} before, '
          f'{load_after:.2f} after (other work on the machine slows it)')
    print(f'configurations per second: {log["total"] / wall:.2f} '
          f'(whole process); Calculon\'s own rate (pool only): '
          f'{log["rate"]:.2f}')
    print(f'evaluated-and-fitting per second: {log["good"] / wall:.2f}')
    print('best configuration (Calculon\'s top-1 by sample rate):')
    print(describe_best(out, syst))

  if args.instrument:
    out = os.path.join(workdir, 'best_instrumented.json')
    argv = loe_args(system, out, restrict)
    env = dict(os.environ, PYTHONPATH=tree)
    print('\ninstrumented serial run (one process, Llm.compile/run counted):')
    proc = subprocess.run([args.python, '-c', INSTRUMENT_CODE] + argv,
                          cwd=tree, env=env, capture_output=True, text=True)
    line = [l for l in proc.stdout.splitlines()
            if l.startswith('INSTRUMENT:')]
    if proc.returncode != 0 or not line:
      ok = False
      print(proc.stdout[-2000:] + proc.stderr[-2000:])
    else:
      r = json.loads(line[0][len('INSTRUMENT:'):])
      n, t = r['counts'], r['eval_s']
      log = parse_log(proc.stdout)
      print(f'  Llm.compile calls {n["compile_calls"]} (Calculon\'s total '
            f'{log.get("total")}), Llm.run calls {n["run_calls"]}')
      for k in ('good', 'rejected_network', 'rejected_memory',
                'rejected_other'):
        per = 1e3 * t[k] / n[k] if n[k] else 0.0
        print(f'  {k}: {n[k]} configurations, {t[k]:.2f} s, '
              f'{per:.3f} ms each')
      print(f'  wall {r["wall_s"]:.2f} s (search only), '
            f'{n["compile_calls"] / r["wall_s"]:.2f} configurations/s')

  if not args.keep:
    shutil.rmtree(workdir, ignore_errors=True)
  return 0 if ok else 1


if __name__ == '__main__':
  sys.exit(main())

#!/usr/bin/env python3
"""Builds docs/fidelity/serving's tables from
 A: inference-sim/training default_args (inference-perf lifecycle JSON, vLLM v0.15.1, H100 SXM)
 B: gpustack/gpustack docs/performance-lab (vllm bench serve / guidellm text results)
 C: SGLang's benchmark README excerpt (SGLang 0.3 vs vLLM 0.6)
Every value is copied from the source text; the quote column holds the source line.

  build_validation.py SOURCES OUT_DIR [FULL_CSV]

SOURCES holds training/ (a clone of inference-sim/training at A_COMMIT) and gpustack_runs.json
(tools/parse_gpustack.py's output); C's excerpt is the one beside this script. OUT_DIR gets
runs.csv (one row per run) and measurements_a.csv, _b.csv, _c.csv (one row per value, by
source); FULL_CSV, if given, the full table (every column on every row, quote included).
"""
import csv, json, os, re, glob, sys
import yaml

if len(sys.argv) < 3:
    sys.exit(__doc__)
SOURCES, OUT_DIR = sys.argv[1], sys.argv[2]
FULL_CSV = sys.argv[3] if len(sys.argv) > 3 else None
COLS = ['row_id', 'run_id', 'source', 'source_url', 'repo', 'path', 'commit', 'line',
        'engine', 'engine_version', 'model', 'gpu', 'gpu_count', 'tp', 'ep', 'dp',
        'server_command', 'client', 'client_command', 'client_command_origin',
        'arrival', 'request_rate', 'max_concurrency', 'num_requests', 'dataset',
        'input_len', 'output_len', 'prefix_sharing', 'stage', 'stage_duration_s',
        'section', 'metric', 'stat', 'value', 'unit', 'quote', 'caveats']
rows = []

# ---------------------------------------------------------------- A: inference-sim/training
A_REPO = 'inference-sim/training'
A_COMMIT = 'ed5c1d26900e6909758d5e1641a18edaf56a1caf'  # HEAD of the stored snapshot; default_args unchanged since c4f03409
A_ROOT = os.path.join(SOURCES, 'training')
A_EXCLUDED = {'20260218-135247-mixtral-8x7b-v0-1-tp2-reasoning': 'overload (69% failed) - excluded by split.py EXCLUDED_OVERLOAD',
              '20260217-170634-llama-2-7b-tp1-reasoning': 'overload (85% failed) - excluded by split.py EXCLUDED_OVERLOAD',
              '20260218-065057-llama-2-70b-hf-tp4-reasoning': 'overload (33% failed) - excluded by split.py EXCLUDED_OVERLOAD'}
A_COMMON = ('vLLM v0.15.1 per inference-sim/sim-to-real-accuracy-validation docs/plans/2026-03-04-sim-to-real-accuracy-validation-design.md '
            '(prefix caching on, chunked prefill on, fp16, KV CPU offloading 8 GiB via OffloadingConnector); '
            'client: inference-perf in-cluster (server base_url is a 10.x pod IP); no warm-up stated; '
            'resolved results/config.yaml shows shared_prefix num_groups=10 num_prompts_per_group=10 whereas profile.yaml asked '
            'for num_unique_system_prompts/num_users_per_system_prompt/enable_multi_turn_chat (keys apparently not applied); '
            'ignore_eos=true yet output_len min is 0 in some stages (see output_len rows); ITL median is microseconds: tokens arrive several per SSE chunk, use TPOT for decode')
LAT = [('time_to_first_token', 'ttft'), ('inter_token_latency', 'itl'), ('time_per_output_token', 'tpot'),
       ('request_latency', 'e2e'), ('normalized_time_per_output_token', 'ntpot')]
STATS = ['mean', 'median', 'p90', 'p95', 'p99', 'min', 'max']

def rawnum(text, v):
    r = repr(v)
    if r not in text:
        r2 = str(v)
        if r2 not in text:
            raise SystemExit('number not found verbatim: %r' % v)
        return r2
    return r

def find_line(text, key_path, val_repr):
    # line number of the value line inside the block of key_path[-1]
    lines = text.split('\n')
    start = 0
    for k in key_path[:-1]:
        for i in range(start, len(lines)):
            if '"%s"' % k in lines[i]:
                start = i
                break
    for i in range(start, len(lines)):
        if '"%s": %s' % (key_path[-1], val_repr) in lines[i]:
            return i + 1, lines[i].strip().rstrip(',')
    raise SystemExit('line not found %s %s' % (key_path, val_repr))

a_runs = sorted(glob.glob(A_ROOT + '/default_args/*/'))
run_no = 0
for d in a_runs:
    name = os.path.basename(d.rstrip('/'))
    run_no += 1
    exp = yaml.safe_load(open(d + 'exp-config.yaml'))
    prof_txt = open(d + 'profile.yaml').read().strip()
    prof = json.loads(prof_txt)
    cfg = yaml.safe_load(open(d + 'results/config.yaml'))
    sp = cfg['data']['shared_prefix']
    psp = prof['data']['shared_prefix']
    stages = cfg['load']['stages']
    model = exp['model']
    tp = exp['tensor_parallelism']
    server = ('vllm serve %s --tensor-parallel-size %d --max-model-len %d --max-num-batched-tokens %d --max-num-seqs %d '
              '(exp-config.yaml; other flags per design doc: prefix caching, chunked prefill, fp16, KV CPU offload 8 GiB)') % (
        model, tp, exp['max_model_len'], exp['max_num_batched_tokens'], exp['max_num_seqs'])
    client_cmd = 'inference-perf, profile.yaml: ' + prof_txt
    prefix = ('shared_prefix (resolved config.yaml): num_groups=%d num_prompts_per_group=%d system_prompt_len=%d question_len=%d; '
              'profile.yaml asked num_unique_system_prompts=%s num_users_per_system_prompt=%s enable_multi_turn_chat=%s') % (
        sp['num_groups'], sp['num_prompts_per_group'], sp['system_prompt_len'], sp['question_len'],
        psp.get('num_unique_system_prompts'), psp.get('num_users_per_system_prompt'), psp.get('enable_multi_turn_chat'))
    cav = A_COMMON
    if name in A_EXCLUDED:
        cav = A_EXCLUDED[name] + '; ' + cav
    files = [('stage_%d' % i, 'results/stage_%d_lifecycle_metrics.json' % i) for i in range(len(stages))] + [('summary', 'results/summary_lifecycle_metrics.json')]
    for stage, rel in files:
        p = d + rel
        text = open(p).read()
        j = json.loads(text)
        if stage == 'summary':
            rate = '+'.join(str(s['rate']) for s in stages)
            dur = sum(s['duration'] for s in stages)
        else:
            si = int(stage.split('_')[1])
            rate = stages[si]['rate']
            dur = stages[si]['duration']
        base = dict(run_id='A%02d' % run_no, source='inference-sim/training (BLIS ground truth, vLLM v0.15.1)',
                    source_url='https://github.com/%s/blob/%s/default_args/%s/%s' % (A_REPO, A_COMMIT, name, rel),
                    repo=A_REPO, path='default_args/%s/%s' % (name, rel), commit=A_COMMIT,
                    engine='vllm', engine_version='0.15.1', model=model, gpu='H100-SXM-80GB', gpu_count=tp, tp=tp, ep='', dp='1',
                    server_command=server, client='inference-perf (kubernetes-sigs)', client_command=client_cmd,
                    client_command_origin='verbatim profile.yaml (expanded: results/config.yaml)',
                    arrival='constant-rate stages (load.type=constant), streaming completions API, ignore_eos=true',
                    request_rate=rate, max_concurrency='num_workers=224 x worker_max_concurrency=100 (client limit)',
                    num_requests=j['load_summary']['count'], dataset='synthetic shared_prefix (inference-perf)',
                    input_len='system_prompt_len %d + question_len %d' % (sp['system_prompt_len'], sp['question_len']),
                    output_len=sp['output_len'], prefix_sharing=prefix, stage=stage, stage_duration_s=dur,
                    section=name, caveats=cav)
        def add(keypath, metric, stat, unit):
            o = j
            for k in keypath:
                o = o[k]
            if o is None:
                return
            vr = rawnum(text, o)
            ln, q = find_line(text, keypath, vr)
            r = dict(base)
            r.update(line=ln, metric=metric, stat=stat, value=vr, unit=unit, quote='%s: %s' % ('.'.join(keypath[:-1]), q))
            rows.append(r)
        add(['load_summary', 'count'], 'requests_sent', 'count', 'requests')
        if 'requested_rate' in j['load_summary']:
            add(['load_summary', 'requested_rate'], 'request_rate_requested', 'value', 'req/s')
            add(['load_summary', 'achieved_rate'], 'request_rate_achieved', 'value', 'req/s')
            add(['load_summary', 'send_duration'], 'send_duration', 'value', 's')
        add(['successes', 'count'], 'requests_succeeded', 'count', 'requests')
        add(['failures', 'count'], 'requests_failed', 'count', 'requests')
        for k, m in LAT:
            for s in STATS:
                add(['successes', 'latency', k, s], m, s, 's')
        for k in ['input_tokens_per_sec', 'output_tokens_per_sec', 'total_tokens_per_sec', 'requests_per_sec']:
            add(['successes', 'throughput', k], 'throughput_' + k.replace('_per_sec', '_per_s'), 'value', k.split('_per')[0].replace('_', ' ') + '/s')
        for k in ['prompt_len', 'output_len']:
            for s in ['mean', 'median', 'min', 'max']:
                add(['successes', k, s], k, s, 'tokens')

# ---------------------------------------------------------------- B: GPUStack performance lab
B_REPO = 'gpustack/gpustack'
B_COMMIT = '47277d79f4a5bae12a2d25e9ecbed2a2177a5f2d'
gp = json.load(open(os.path.join(SOURCES, 'gpustack_runs.json')))
ENG_ALIASES = {'vllm': 'vLLM', 'sglang': 'SGLang', 'trtllm': 'TensorRT-LLM', 'vllm-ascend': 'vLLM-Ascend', 'mindie': 'MindIE'}

def engine_of(run, doc):
    s = ' '.join(run['serving'] or []) if run['serving'] else ''
    b = ' '.join(run['backend'] or []) if run['backend'] else ''
    sec = run['section']
    if s:
        if 'sglang' in s: return 'sglang', 'serving script'
        if 'trtllm-serve' in s: return 'trtllm', 'serving script'
        if 'mindie' in s: return 'mindie', 'serving script'
        if 'vllm serve' in s:
            return ('vllm-ascend' if '910b' in doc['path'] else 'vllm'), 'serving script'
    if re.search(r'SGLang\s*$', sec) or (run['label'] or '') == 'SGLang': return 'sglang', 'section heading'
    if re.search(r'vLLM\s*$', sec): return 'vllm', 'section heading'
    if re.search(r'--(context-length|tp-size|mem-fraction-static|max-running-requests|dp-size|chunked-prefill-size)', b): return 'sglang', 'inferred from SGLang-only flags in backend parameters'
    if re.search(r'--(max-model-len|tensor-parallel-size|performance-mode|max-num-seqs|max-num-batched-tokens|max-cudagraph)', b): return 'vllm', 'inferred from vLLM-only flags in backend parameters'
    return '', 'unknown'

def version_of(engine, doc):
    want = ENG_ALIASES.get(engine, engine)
    for v in doc['engine_versions']:
        m = re.match(r'(vLLM-Ascend|vLLM|SGLang|TensorRT-LLM|MindIE):?\s*v?(.*)', v)
        if m and m.group(1) == want:
            return m.group(2).strip()
    return ''

def gpu_of(doc):
    h = doc['hardware']
    cnt = 1
    m = re.search(r'(\d+)\s*×', h) or re.search(r'x(\d+)', h)
    if m: cnt = int(m.group(1))
    g = 'A100-SXM-80GB' if 'A100' in h else 'H200-SXM-141GB' if 'H200' in h else 'H100-SXM-80GB' if 'H100' in h else 'Ascend-910B' if '910B' in h else h
    return g, cnt

def flag(s, names):
    for n in names:
        m = re.search(r'(?:^|\s)' + re.escape(n) + r'(?:[ =])(\S+)', s)
        if m: return m.group(1)
    return ''

OTHER_HEAD = [(r'^Rate (\d+)', lambda m: 'ShareGPT %sRPS' % m.group(1)), (r'^ShareGPT', lambda m: 'ShareGPT'),
              (r'^Throughput', lambda m: 'Throughput'), (r'^Long Context', lambda m: 'Long Context'),
              (r'^Generation Heavy', lambda m: 'Generation Heavy'), (r'^Balanced', lambda m: 'Balanced'),
              (r'^Short Context', lambda m: 'Short Context')]
RANDOM_LBL = {'32k': (32000, 100), '4k': (4000, 200), '2k': (2000, 100), '128': (128, 4)}

def client_of(run, doc, succ, maxconc):
    """returns (client, client_command, origin, arrival, rate, max_conc, dataset, in, out, variant)"""
    comments = ' '.join(run['comments'])
    model_flag = None
    tmpl = [l for l in doc['script_section'] if 'bench serve' in l]
    if doc['profiles']:
        prof = run['profile']
        origin = 'GPUStack benchmark profile (guidellm via gpustack/benchmark-runner)'
        if not prof:
            last = run['section'].split(' > ')[-1]
            for pat, f in OTHER_HEAD:
                m = re.match(pat, last)
                if m:
                    prof = f(m)
                    origin += '; profile taken from the section heading "%s"' % last
                    break
        p = doc['profiles'].get(prof, {})
        ds = p.get('dataset_name', '')
        rate = p.get('request_rate', '')
        cmd = 'guidellm benchmark --profile constant --rate %s --max-requests %s --data %s' % (rate, p.get('total_requests', ''),
              'ShareGPT_V3_unfiltered_cleaned_split.json' if ds == 'ShareGPT' else 'random prompt_tokens=%s output_tokens=%s seed=%s' % (
                  p.get('dataset_input_tokens'), p.get('dataset_output_tokens'), p.get('dataset_seed')))
        return ('guidellm (GPUStack benchmark-runner)', 'profile %s: %s' % (prof, json.dumps(p)) + ' | open-source equivalent per doc: ' + cmd,
                origin, 'constant rate %s req/s' % rate, rate, maxconc, ds, p.get('dataset_input_tokens', 'ShareGPT'),
                p.get('dataset_output_tokens', 'ShareGPT'), '')
    # vllm bench serve docs
    sharegpt = [l for l in tmpl if 'sharegpt' in l]
    rnd = [l for l in tmpl if 'random' in l]
    lc = comments.lower()
    m = re.search(r'random (\d+k?) input', lc)
    if m:
        key = m.group(1)
        il, ol = RANDOM_LBL[key]
        base = rnd[0] if rnd else ''
        cmd = re.sub(r'--random-input-len \d+', '--random-input-len %d' % il, base)
        cmd = re.sub(r'--random-output-len \d+', '--random-output-len %d' % ol, cmd)
        cmd = re.sub(r'--num-prompts \d+', '--num-prompts %s' % succ, cmd)
        return ('vllm bench serve', cmd, 'reconstructed: the doc\'s random-dataset command with the lengths its Benchmark Dataset section lists for "%s" and --num-prompts = Successful requests' % run['comments'][0],
                'all requests at t=0 (no --request-rate: inf)', 'inf', maxconc, 'random', il, ol, '')
    if '1k random input + 2k generation' in lc:
        base = rnd[0] if rnd else ''
        cmd = re.sub(r'--random-input-len \d+', '--random-input-len 1000', base)
        cmd = re.sub(r'--random-output-len \d+', '--random-output-len 2000', cmd)
        cmd = re.sub(r'--num-prompts \d+', '--num-prompts %s' % succ, cmd)
        return ('vllm bench serve', cmd, 'reconstructed from the block label "1k random input + 2k generation" (doc lists "Generation-Heavy Prompt: 1K input tokens, 2K output tokens"); lengths 1000/2000 assumed from "1K"/"2K"',
                'all requests at t=0 (no --request-rate: inf)', 'inf', maxconc, 'random', 1000, 2000, '')
    m = re.search(r'(?:sharegpt batch size|bs=)\s*(\d+)', lc)
    if m:
        n = m.group(1)
        base = sharegpt[0] if sharegpt else ''
        cmd = re.sub(r'--num-prompts \d+', '--num-prompts %s' % succ, base)
        if '--max-concurrency' in cmd:
            cmd = re.sub(r'--max-concurrency \d+', '--max-concurrency %s' % n, cmd)
        else:
            cmd += ' --max-concurrency %s' % n
        return ('vllm bench serve', cmd, 'reconstructed: ShareGPT command of the doc with --max-concurrency from the block label "%s" (result shows "Maximum request concurrency")' % run['comments'][0],
                'closed loop, max %s in flight (all requests eligible at t=0)' % n, 'inf', n, 'sharegpt', 'ShareGPT', 'ShareGPT', '')
    variant = ''
    if run['comments']:
        variant = 'result block labelled "%s": that variant of the serving command' % ' '.join(run['comments'])
    base = sharegpt[0] if sharegpt else ''
    mc = re.search(r'--max-concurrency (\d+)', base)
    return ('vllm bench serve', base, 'verbatim: the doc\'s ShareGPT benchmark command (the blocks of its optimisation sections are ShareGPT runs)',
            ('closed loop, max %s in flight' % mc.group(1)) if mc else 'all requests at t=0 (no --request-rate: inf)', 'inf',
            mc.group(1) if mc else maxconc, 'sharegpt', 'ShareGPT', 'ShareGPT', variant)

MET = [(r'^Successful requests:', 'requests_succeeded', 'count', 'requests'),
       (r'^Maximum request concurrency:', 'max_request_concurrency', 'value', 'requests'),
       (r'^Benchmark duration \(s\):', 'duration', 'value', 's'),
       (r'^Total input tokens:', 'total_input_tokens', 'value', 'tokens'),
       (r'^Total generated tokens:', 'total_generated_tokens', 'value', 'tokens'),
       (r'^Request throughput \(req/s\):', 'throughput_requests_per_s', 'value', 'req/s'),
       (r'^Output token throughput \(tok/s\):', 'throughput_output_tokens_per_s', 'value', 'tok/s'),
       (r'^Peak output token throughput \(tok/s\):', 'peak_output_tokens_per_s', 'value', 'tok/s'),
       (r'^Peak concurrent requests:', 'peak_concurrent_requests', 'value', 'requests'),
       (r'^Total Token throughput \(tok/s\):', 'throughput_total_tokens_per_s', 'value', 'tok/s'),
       (r'^(Mean|Median|P\d+) Latency\s*\(s\):', 'e2e', None, 's'),
       (r'^(Mean|Median|P\d+) E2EL \(ms\):', 'e2e', None, 'ms'),
       (r'^(Mean|Median|P\d+) TTFT \(ms\):', 'ttft', None, 'ms'),
       (r'^(Mean|Median|P\d+) TPOT \(ms\):', 'tpot', None, 'ms'),
       (r'^(Mean|Median|P\d+) ITL \(ms\):', 'itl', None, 'ms')]

seen = {}
run_no = 0
for doc in gp['docs']:
    g, cnt = gpu_of(doc)
    for run in doc['runs']:
        vals = {}
        for ln, l in run['lines']:
            vals[l.split(':')[0]] = l.split(':', 1)[1].strip() if ':' in l else ''
        succ = vals.get('Successful requests', '')
        maxc = vals.get('Maximum request concurrency', '')
        key = (doc['path'], tuple(l for _, l in run['lines']))
        dup_of = seen.get(key)
        run_no += 1
        rid = 'B%03d' % run_no
        if dup_of is None:
            seen[key] = rid
        eng, eng_origin = engine_of(run, doc)
        ver = version_of(eng, doc)
        sv = [l for l in (run['serving'] or []) if l.strip() and not l.strip().startswith('#')]
        server = ' '.join(x.strip().rstrip('\\').strip() for x in sv) if sv else ''
        if run['backend']:
            server = (server + ' ' if server else '') + '[%s: %s]' % (run['backend_title'], ' '.join(run['backend']))
        model = ''
        m = re.search(r'(?:vllm serve|trtllm-serve|mindie serve|--model-path)\s+(\S+)', server)
        if m: model = m.group(1)
        else: model = doc['model_section']
        allflags = server + ' ' + ' '.join(run['comments'])
        tp = flag(allflags, ['--tensor-parallel-size', '-tp', '--tp', '--tp-size', '--tp_size'])
        ep = flag(allflags, ['--ep-size', '--ep_size', '--ep'])
        if not ep and '--enable-expert-parallel' in allflags: ep = 'enabled (--enable-expert-parallel: EP size = TPxDP)'
        dp = flag(allflags, ['--data-parallel-size', '-dp', '--dp-size', '--dp'])
        if not tp: tp = '1 (not set)' if cnt == 1 else 'not set (engine default 1)'
        client, ccmd, corigin, arrival, rate, mconc, ds, il, ol, variant = client_of(run, doc, succ, maxc)
        cav = []
        if dup_of: cav.append('same result block as %s (quoted twice in the doc)' % dup_of)
        if eng_origin != 'serving script': cav.append('engine %s' % eng_origin)
        if variant: cav.append(variant)
        if 'Quantization in TensorRT-LLM' in run['section'] and 'sglang' in server: cav.append('doc inconsistency: section says TensorRT-LLM, serving script is SGLang')
        if 'Qwen3-14B' in server and 'qwen3-32b' in doc['path']: cav.append('doc inconsistency: Qwen3-32B page shows a Qwen3-14B serving command')
        if client.startswith('guidellm'): cav.append('guidellm token timing: median ITL/TPOT near 0 ms where several tokens arrive per chunk; Peak output token throughput is not meaningful')
        cav.append('client location, warm-up and clocks not stated (GPUStack-managed deployment)')
        base = dict(run_id=rid, source='GPUStack performance lab', source_url='https://github.com/%s/blob/%s/%s#L%d' % (B_REPO, B_COMMIT, doc['path'], run['start_line']),
                    repo=B_REPO, path=doc['path'], commit=B_COMMIT, engine=eng, engine_version=ver, model=model, gpu=g, gpu_count=cnt,
                    tp=tp, ep=ep, dp=dp, server_command=server, client=client, client_command=ccmd, client_command_origin=corigin,
                    arrival=arrival, request_rate=rate, max_concurrency=mconc, num_requests=succ, dataset=ds, input_len=il, output_len=ol,
                    prefix_sharing='none by construction (random) / ShareGPT conversations; prefix caching per engine default',
                    stage='whole run', stage_duration_s=vals.get('Benchmark duration (s)', ''),
                    section=run['section'] + ((' | ' + run['label']) if run['label'] else '') + ((' | ' + ' '.join(run['comments'])) if run['comments'] else ''),
                    caveats='; '.join(cav))
        for ln, l in run['lines']:
            for pat, metric, stat, unit in MET:
                mm = re.match(pat, l)
                if mm:
                    v = l.split(':', 1)[1].strip()
                    if v == 'N/A':
                        break
                    st = stat or mm.group(1).lower()
                    r = dict(base)
                    r.update(line=ln, metric=metric, stat=st, value=v, unit=unit, quote=l.strip())
                    rows.append(r)
                    break

# ---------------------------------------------------------------- C1: SGLang benchmark/benchmark_vllm_060/README.md
C_REPO = 'sgl-project/sglang'
C_COMMIT = '120affb9613cc3f5bcd055ec09c7621d3ced0ebc'
C_PATH = 'benchmark/benchmark_vllm_060/README.md'
ctext = open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          'sglang_benchmark_vllm_060_README.excerpt.md')).read().split('\n')
setups = {
 'Llama 3.1 8B Instruct 1 x A100 80G': dict(model='meta-llama/Llama-3.1-8B-Instruct', gpu='A100-80GB (stated "A100 80G"; form factor not stated)', gpu_count=1, tp=1,
     srv={'SGLang': 'python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --enable-torch-compile --disable-radix-cache',
          'vLLM': 'python -m vllm.entrypoints.openai.api_server --model meta-llama/Llama-3.1-8B-Instruct --disable-log-requests --num-scheduler-steps 10 --max_model_len 4096'}),
 'Llama 3.1 70B Instruct 4 x H100 80G': dict(model='meta-llama/Llama-3.1-70B-Instruct', gpu='H100-80GB (form factor not stated)', gpu_count=4, tp=4,
     srv={'SGLang': 'python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --disable-radix-cache --tp 4',
          'vLLM': 'python -m vllm.entrypoints.openai.api_server --model meta-llama/Llama-3.1-70B-Instruct --disable-log-requests --num-scheduler-steps 10 --tensor 4 --max_model_len 4096'}),
}
offline_srv = {'Llama 3.1 70B Instruct 4 x H100 80G': {'SGLang': 'python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --disable-radix-cache --tp 4 --mem-frac 0.88'}}
mode = None
setup = None
crun = 0
for i, l in enumerate(ctext):
    if l.startswith('## Online benchmark results'): mode = 'online'
    if l.startswith('## Offline benchmark results'): mode = 'offline'
    if l.startswith('## Installation'): mode = None
    m = re.match(r'^### (.*)', l)
    if m and mode: setup = m.group(1).strip()
    if mode and l.startswith('|') and re.match(r'^\|\s*(\d+|inf)\s*\|', l):
        cells = [c.strip().strip('*') for c in l.strip('|').split('|')]
        crun += 1
        eng = cells[2]
        st = setups[setup]
        srv = offline_srv.get(setup, {}).get(eng, st['srv'][eng]) if mode == 'offline' else st['srv'][eng]
        rate = cells[0]
        n = cells[1]
        ccmd = 'python3 -m sglang.bench_serving --backend %s --dataset-name sharegpt --num-prompts %s%s' % (
            'sglang' if eng == 'SGLang' else 'vllm', n, '' if rate == 'inf' else ' --request-rate %s' % rate)
        base = dict(run_id='C%02d' % crun, source='SGLang repo: SGLang v0.3.0 vs vLLM v0.6.0 benchmark README',
                    source_url='https://github.com/%s/blob/%s/%s#L%d' % (C_REPO, C_COMMIT, C_PATH, i + 1), repo=C_REPO, path=C_PATH,
                    commit=C_COMMIT, line=i + 1, engine=eng.lower(), engine_version='0.3.0' if eng == 'SGLang' else '0.6.0',
                    model=st['model'], gpu=st['gpu'], gpu_count=st['gpu_count'], tp=st['tp'], ep='', dp='', server_command=srv,
                    client='sglang.bench_serving', client_command=ccmd, client_command_origin='verbatim from the README (Online/Offline benchmarks sections)',
                    arrival=('Poisson, %s req/s (bench_serving default burstiness)' % rate) if rate != 'inf' else 'all requests at t=0',
                    request_rate=rate, max_concurrency='', num_requests=n, dataset='sharegpt (bench_serving default ShareGPT_V3 file, default seed)',
                    input_len='ShareGPT', output_len='ShareGPT', prefix_sharing='ShareGPT; radix cache disabled on SGLang; vLLM 0.6.0 prefix caching off (engine default)',
                    stage='whole run', stage_duration_s='', section=setup + ' | ' + mode,
                    caveats='older engines (Sep 2024, vLLM V0 with --num-scheduler-steps 10 multi-step); units not printed in the table (ms per bench_serving convention); warm-up, client location, clocks not stated')
        hdr = [c.strip() for c in ctext[i - 2 - (crun - 1) % 4 if False else 0].split('|')] if False else None
        if mode == 'online':
            names = [('e2e', 'median', 'ms'), ('ttft', 'median', 'ms'), ('tpot', 'median', 'ms'), ('itl', 'median', 'ms')]
        else:
            names = [('throughput_requests_per_s', 'value', 'req/s'), ('throughput_output_tokens_per_s', 'value', 'tok/s')]
        for (metric, stat, unit), v in zip(names, cells[3:]):
            r = dict(base)
            r.update(metric=metric, stat=stat, value=v, unit=unit, quote=l.strip())
            rows.append(r)

for i, r in enumerate(rows):
    r['row_id'] = 'V%05d' % (i + 1)
# The per-value columns, and the run-level ones (each run's first row, plus its stages and count).
VALUE_COLS = ['row_id', 'run_id', 'stage', 'stage_duration_s', 'metric', 'stat', 'value', 'unit',
              'line']
RUN_COLS = [c for c in COLS if c not in VALUE_COLS + ['row_id', 'source_url', 'quote']
            or c == 'run_id'] + ['stages', 'rows']


def write(path, cols, records):
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction='ignore')
        w.writeheader()
        for r in records:
            w.writerow({c: r.get(c, '') for c in cols})


runs = {}
for r in rows:
    run = runs.setdefault(r['run_id'], dict(r, stages=[], rows=0))
    if r['stage'] not in run['stages']:
        run['stages'].append(r['stage'])
    run['rows'] += 1
for run in runs.values():
    run['stages'] = ';'.join(run['stages'])
write(os.path.join(OUT_DIR, 'runs.csv'), RUN_COLS, runs.values())
# One file per source: each stays small enough to review.
for letter in 'ABC':
    write(os.path.join(OUT_DIR, 'measurements_%s.csv' % letter.lower()), VALUE_COLS,
          [r for r in rows if r['run_id'].startswith(letter)])
if FULL_CSV:
    write(FULL_CSV, COLS, rows)
print(len(rows), 'rows,', len(runs), 'runs')

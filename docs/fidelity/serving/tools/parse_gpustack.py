#!/usr/bin/env python3
"""Parse GPUStack performance-lab docs into run records (JSON) for the i38 notes.

Reads every docs/performance-lab/<model>/<hw>.md of a gpustack checkout and emits one
record per "Serving Benchmark Result" block with the surrounding context (section path,
engine, serving command / backend parameters, benchmark profile or block label).
"""
import json, re, sys, os, glob

ROOT = sys.argv[1]
COMMIT = sys.argv[2]

def strip_indent(lines, n):
    out = []
    for l in lines:
        out.append(l[n:] if l.startswith(' ' * n) else l.lstrip())
    return out

def parse_doc(path):
    rel = os.path.relpath(path, ROOT)
    text = open(path).read().split('\n')
    doc = {'path': rel, 'title': text[0].lstrip('# ').strip()}
    # Experimental setup
    def section(name):
        out = []
        on = False
        for l in text:
            if re.match(r'^###\s+' + re.escape(name), l):
                on = True
                continue
            if on and re.match(r'^##+\s', l):
                break
            if on:
                out.append(l)
        return [l for l in out if l.strip()]
    doc['model_section'] = ' '.join(l.strip('- ').strip() for l in section('Model'))
    doc['hardware'] = ' '.join(section('Hardware'))
    doc['engine_versions'] = [l.strip('- ').strip() for l in section('Engine Version')]
    doc['dataset_section'] = section('Benchmark Dataset')
    doc['script_section'] = section('Benchmark Script')
    # benchmark profiles (new format): ##### Name + yaml block
    profiles = {}
    cur = None
    inprof = False
    for l in text:
        m = re.match(r'^#####\s+(.*)', l)
        if m:
            cur = m.group(1).strip()
            profiles[cur] = {}
            continue
        if re.match(r'^#{2,4}\s', l):
            cur = None
        if cur and re.match(r'^[a-z_]+:\s', l):
            k, v = l.split(':', 1)
            profiles[cur][k.strip()] = v.strip()
    doc['profiles'] = profiles
    # walk
    heads = {}
    label = None
    serving = None
    serving_title = None
    backend = None
    backend_title = None
    profile = None
    runs = []
    i = 0
    n = len(text)
    while i < n:
        l = text[i]
        m = re.match(r'^(#{2,5})\s+(.*)', l)
        if m:
            lvl = len(m.group(1))
            heads = {k: v for k, v in heads.items() if k < lvl}
            heads[lvl] = m.group(2).strip()
            label = None
            if lvl <= 3:
                profile = None
            i += 1
            continue
        mp = re.match(r'^- Profile:\s*`([^`]*)`', l)
        if mp:
            profile = mp.group(1)
            i += 1
            continue
        mb = re.match(r'^- (.*Backend Parameters):', l)
        if mb:
            # code block indented 2
            j = i + 1
            while j < n and not text[j].strip().startswith('```'):
                j += 1
            k = j + 1
            blk = []
            while k < n and not text[k].strip().startswith('```'):
                blk.append(text[k].strip())
                k += 1
            backend = [b for b in blk if b]
            backend_title = mb.group(1)
            i = k + 1
            continue
        mi = re.match(r'^\?\?\?\+?\s+\w+\s+"([^"]*)"', l)
        if mi:
            title = mi.group(1)
            j = i + 1
            while j < n and not text[j].strip().startswith('```'):
                j += 1
            k = j + 1
            blk = []
            while k < n and not (text[k].strip().startswith('```') and text[k].startswith('    ```')):
                blk.append(text[k])
                k += 1
            blk = strip_indent(blk, 4)
            tl = title.lower()
            if 'serving script' in tl:
                serving = blk
                serving_title = title
            elif 'benchmark result' in tl:
                # split blocks
                cur_comments = []
                cur = None
                start_line = None
                for off, b in enumerate(blk):
                    lineno = j + 2 + off  # 1-based line number in file
                    if 'Serving Benchmark Result' in b:
                        cur = {'lines': [], 'comments': list(cur_comments), 'start_line': lineno}
                        cur_comments = []
                        continue
                    if cur is not None:
                        if b.startswith('=====') :
                            runs.append(dict(
                                section=' > '.join(heads[k2] for k2 in sorted(heads)),
                                label=label, serving=serving, serving_title=serving_title,
                                backend=backend, backend_title=backend_title,
                                profile=profile, result_title=title,
                                comments=cur['comments'], start_line=cur['start_line'],
                                lines=cur['lines']))
                            cur = None
                            continue
                        cur['lines'].append((lineno, b))
                    else:
                        if b.strip().startswith('#'):
                            cur_comments.append(b.strip())
                        elif b.strip() == '':
                            pass
                        else:
                            cur_comments.append(b.strip())
            i = k + 1
            continue
        s = l.strip()
        if s and not l.startswith(' ') and not s.startswith(('|', '!', '-', '*', '?', '`', '<', '#', '1.', '2.', '3.', '4.', '5.', '[')) and len(s) < 60 and not s.endswith('.') and not s.startswith('Result'):
            label = s
        i += 1
    doc['runs'] = runs
    return doc

docs = []
for p in sorted(glob.glob(os.path.join(ROOT, 'docs/performance-lab/*/*.md'))):
    docs.append(parse_doc(p))
json.dump({'commit': COMMIT, 'docs': docs}, sys.stdout, indent=1)

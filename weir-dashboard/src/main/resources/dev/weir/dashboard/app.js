// Weir dashboard: polls /api/state every 500 ms and redraws. Read-only; no libraries.
'use strict';
(function () {
  const SVG = 'http://www.w3.org/2000/svg';
  const POLL_MS = 500;
  const HISTORY = 120; // samples kept per step: 60 s at 500 ms
  const history = new Map(); // step name -> [{t, rate}]
  let previous = null; // the previous state, for rates
  let polls = 0;
  let failuresInARow = 0;

  const $ = (id) => document.getElementById(id);

  function el(name, attrs, text) {
    const e = document.createElement(name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function svg(name, attrs, text) {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function recordFirstPaint() {
    const root = document.documentElement;
    if (root.hasAttribute('data-first-paint-ms')) return true;
    const entries = performance.getEntriesByType('paint');
    const first = entries.find((e) => e.name === 'first-paint')
      || entries.find((e) => e.name === 'first-contentful-paint');
    if (!first) return false;
    root.setAttribute('data-first-paint-ms', first.startTime.toFixed(1));
    const fcp = entries.find((e) => e.name === 'first-contentful-paint');
    if (fcp) root.setAttribute('data-first-contentful-paint-ms', fcp.startTime.toFixed(1));
    return true;
  }

  function watchPaint() {
    if (!recordFirstPaint()) requestAnimationFrame(watchPaint);
  }

  function fmtCount(n) {
    if (n === null || n === undefined) return '–';
    if (n >= 1e9) return (n / 1e9).toFixed(2) + ' G';
    if (n >= 1e6) return (n / 1e6).toFixed(2) + ' M';
    if (n >= 1e4) return (n / 1e3).toFixed(1) + ' k';
    return String(Math.round(n));
  }

  function fmtBytes(b) {
    if (b >= 1 << 30) return (b / (1 << 30)).toFixed(2) + ' GiB';
    if (b >= 1 << 20) return (b / (1 << 20)).toFixed(2) + ' MiB';
    if (b >= 1 << 10) return (b / (1 << 10)).toFixed(1) + ' KiB';
    return b + ' B';
  }

  function fmtNanos(ns) {
    if (ns >= 1e9) return (ns / 1e9).toFixed(2) + ' s';
    if (ns >= 1e6) return (ns / 1e6).toFixed(1) + ' ms';
    if (ns >= 1e3) return (ns / 1e3).toFixed(0) + ' µs';
    return ns + ' ns';
  }

  function fillColour(fill) {
    // green (empty) -> amber (half) -> red (full)
    const lerp = (a, b, t) => Math.round(a + (b - a) * t);
    const ok = [46, 157, 91], warn = [224, 165, 38], bad = [214, 69, 65];
    const [from, to, t] = fill < 0.5 ? [ok, warn, fill / 0.5] : [warn, bad, (fill - 0.5) / 0.5];
    return 'rgb(' + lerp(from[0], to[0], t) + ',' + lerp(from[1], to[1], t) + ',' + lerp(from[2], to[2], t) + ')';
  }

  /** Records per second out of each step (in, for a sink), from two states in a row. */
  function updateRates(state) {
    const now = state.nanos;
    for (const step of state.steps) {
      const count = step.kind === 'sink' ? step.recordsIn : step.recordsOut;
      if (count === null) continue;
      let rate = 0;
      if (previous) {
        const before = previous.steps.find((s) => s.name === step.name);
        const was = before ? (step.kind === 'sink' ? before.recordsIn : before.recordsOut) : null;
        const seconds = (now - previous.nanos) / 1e9;
        if (was !== null && seconds > 0) rate = Math.max(0, (count - was) / seconds);
      }
      const samples = history.get(step.name) || [];
      samples.push(rate);
      while (samples.length > HISTORY) samples.shift();
      history.set(step.name, samples);
    }
  }

  function renderHeader(state) {
    $('job-name').textContent = state.job;
    const status = $('job-status');
    status.textContent = state.done ? 'finished' : 'running';
    status.className = 'status ' + (state.done ? 'done' : 'running');
    $('updated').textContent = 'updated ' + new Date(state.epochMillis).toLocaleTimeString();
    document.title = 'Weir · ' + state.job;
  }

  function renderGuarantee(g) {
    const verdict = $('guarantee');
    verdict.textContent = g.verdict.replace(/_/g, '-').toLowerCase() + ' end to end';
    verdict.className = 'verdict ' + g.verdict;
    $('weakest-link').textContent = g.weakest
      ? 'weakest link: ' + g.weakest.name + ' — ' + g.weakest.reason + (g.weakest.fix ? '; ' + g.weakest.fix : '')
      : 'no weak link: every source, the checkpointing mode and every sink are exactly-once';
    const list = $('components');
    clear(list);
    for (const c of g.components) {
      const li = el('li', {}, c.name + ': ' + c.guarantee.replace(/_/g, '-').toLowerCase());
      if (g.weakest && c.name === g.weakest.name) li.className = 'weakest';
      list.appendChild(li);
    }
  }

  function layout(steps) {
    const depth = new Map();
    for (const s of steps) { // inputs come before consumers
      depth.set(s.id, s.inputs.length === 0 ? 0 : 1 + Math.max(...s.inputs.map((i) => depth.get(i))));
    }
    const columns = [];
    for (const s of steps) {
      const d = depth.get(s.id);
      (columns[d] = columns[d] || []).push(s);
    }
    return { depth, columns };
  }

  function renderGraph(state) {
    const graph = $('graph');
    clear(graph);
    const { depth, columns } = layout(state.steps);
    const width = graph.clientWidth || 1200;
    const nodeW = 200, nodeH = 52;
    const colW = Math.max(nodeW + 50, (width - 20) / Math.max(1, columns.length));
    const rows = Math.max(1, ...columns.map((c) => c.length));
    const height = Math.max(120, rows * (nodeH + 28) + 20);
    graph.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    graph.style.height = height + 'px';
    const pos = new Map();
    columns.forEach((col, d) => {
      col.forEach((s, i) => {
        const x = 10 + d * colW + (colW - nodeW) / 2 - (colW - nodeW) / 2;
        const y = (height - col.length * (nodeH + 28)) / 2 + i * (nodeH + 28) + 14;
        pos.set(s.id, { x, y });
      });
    });
    const edges = svg('g', { class: 'edges' });
    for (const e of state.edges) {
      const a = pos.get(e.from), b = pos.get(e.to);
      const x1 = a.x + nodeW, y1 = a.y + nodeH / 2, x2 = b.x, y2 = b.y + nodeH / 2;
      const mid = (x1 + x2) / 2;
      const path = svg('path', {
        d: 'M' + x1 + ',' + y1 + ' C' + mid + ',' + y1 + ' ' + mid + ',' + y2 + ' ' + x2 + ',' + y2,
        class: 'edge ' + (e.channel ? 'channel' : state.figures ? 'chained' : 'unknown'),
        'data-from': e.from, 'data-to': e.to,
      });
      if (e.channel) {
        path.setAttribute('stroke', fillColour(e.fill));
        path.setAttribute('data-fill', e.fill.toFixed(3));
      }
      const title = svg('title', {}, !state.figures ? 'this runner keeps no channel figures' : e.channel
        ? 'channels ' + e.channels + ', fill ' + Math.round(e.fill * 100) + '% (' + e.queuedItems + '/' + e.capacityItems + ' batches)'
        : 'chained: a method call, no channel');
      path.appendChild(title);
      edges.appendChild(path);
      const label = svg('text', { x: mid, y: Math.min(y1, y2) + Math.abs(y2 - y1) / 2 - 6, 'text-anchor': 'middle', class: 'edge-label' },
        e.channel ? 'fill ' + Math.round(e.fill * 100) + '%' : state.figures ? 'chained' : '');
      edges.appendChild(label);
    }
    graph.appendChild(edges);
    const busy = chainBusy(state);
    for (const s of state.steps) {
      const p = pos.get(s.id);
      const g = svg('g', { class: 'node ' + s.kind, 'data-step': s.name, transform: 'translate(' + p.x + ',' + p.y + ')' });
      g.appendChild(svg('rect', { width: nodeW, height: nodeH, rx: 6 }));
      g.appendChild(svg('text', { x: 8, y: 18, class: 'name' }, s.name));
      const rate = (history.get(s.name) || []).slice(-1)[0];
      const parts = [s.kind, s.subtasks ? '×' + s.subtasks : ''];
      g.appendChild(svg('text', { x: 8, y: 33, class: 'detail' }, parts.join(' ').trim()));
      const b = busy.get(s.chain);
      g.appendChild(svg('text', { x: 8, y: 46, class: 'detail' },
        (rate === undefined ? '' : fmtCount(rate) + '/s') + (b ? ' · busy ' + b.busy + '% · bp ' + b.bp + '%' : '')));
      g.appendChild(svg('title', {}, s.name + ' (' + s.kind + '): in ' + fmtCount(s.recordsIn) + ', out ' + fmtCount(s.recordsOut)));
      graph.appendChild(g);
    }
  }

  /** Busy and backpressured share of each chain's time since the previous poll. */
  function chainBusy(state) {
    const out = new Map();
    if (!previous) return out;
    const wall = state.nanos - previous.nanos;
    if (wall <= 0) return out;
    const sums = new Map();
    for (const t of state.tasks) {
      const before = previous.tasks.find((p) => p.task === t.task);
      if (!before) continue;
      const s = sums.get(t.chain) || { busy: 0, bp: 0, n: 0 };
      s.busy += t.busyNanos - before.busyNanos;
      s.bp += t.backpressuredNanos - before.backpressuredNanos;
      s.n++;
      sums.set(t.chain, s);
    }
    for (const [chain, s] of sums) {
      const pct = (x) => {
        const p = Math.min(100, Math.max(0, (100 * x) / (wall * s.n)));
        return p < 10 ? p.toFixed(1) : String(Math.round(p));
      };
      out.set(chain, { busy: pct(s.busy), bp: pct(s.bp) });
    }
    return out;
  }

  function sparkline(samples) {
    const w = 160, h = 28;
    const box = svg('svg', { class: 'spark', viewBox: '0 0 ' + w + ' ' + h, preserveAspectRatio: 'none' });
    if (samples.length === 0) return box;
    const max = Math.max(1, ...samples);
    const step = w / (Math.max(samples.length, 30) - 1);
    const x0 = w - (samples.length - 1) * step;
    const pts = samples.map((v, i) => (x0 + i * step).toFixed(1) + ',' + (h - 2 - (v / max) * (h - 4)).toFixed(1));
    box.appendChild(svg('polygon', { class: 'area', points: x0.toFixed(1) + ',' + h + ' ' + pts.join(' ') + ' ' + w + ',' + h }));
    box.appendChild(svg('polyline', { points: pts.join(' ') }));
    return box;
  }

  function renderThroughput(state) {
    const body = $('throughput').tBodies[0];
    clear(body);
    for (const s of state.steps) {
      if (s.recordsOut === null) continue;
      const samples = history.get(s.name) || [];
      const tr = el('tr', { class: 'step-row', 'data-step': s.name });
      tr.appendChild(el('td', {}, s.name));
      tr.appendChild(el('td', {}, fmtCount(samples.length ? samples[samples.length - 1] : 0) + '/s'));
      const cell = el('td');
      cell.appendChild(sparkline(samples));
      tr.appendChild(cell);
      tr.appendChild(el('td', {}, fmtCount(s.kind === 'sink' ? s.recordsIn : s.recordsOut)));
      body.appendChild(tr);
    }
  }

  function renderCheckpoints(state) {
    const cps = state.checkpoints;
    $('checkpoint-count').textContent = state.checkpointsCompleted + ' completed';
    const timeline = $('checkpoint-timeline');
    clear(timeline);
    const w = timeline.clientWidth || 560, h = 90, base = h - 16;
    timeline.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    timeline.appendChild(svg('line', { class: 'axis', x1: 0, y1: base, x2: w, y2: base }));
    if (cps.length > 0) {
      const t0 = cps[0].triggerEpochMillis;
      const t1 = Math.max(t0 + 1, cps[cps.length - 1].triggerEpochMillis + cps[cps.length - 1].durationMillis);
      const maxDur = Math.max(1, ...cps.map((c) => c.durationMillis));
      const barW = Math.max(3, Math.min(14, (w - 20) / cps.length - 2));
      for (const c of cps) {
        const x = 6 + ((c.triggerEpochMillis - t0) / (t1 - t0)) * (w - 12 - barW);
        const bh = Math.max(2, (c.durationMillis / maxDur) * (base - 14));
        const bar = svg('rect', { class: 'bar' + (c.savepoint ? ' savepoint' : ''), x: x, y: base - bh, width: barW, height: bh });
        bar.appendChild(svg('title', {}, 'checkpoint ' + c.id + ': ' + c.durationMillis + ' ms, ' + fmtBytes(c.sizeBytes) + ', alignment ' + fmtNanos(c.maxAlignmentNanos)));
        timeline.appendChild(bar);
        const ah = Math.min(bh, (c.maxAlignmentNanos / 1e6 / maxDur) * (base - 14));
        if (ah > 0.5) timeline.appendChild(svg('rect', { class: 'align', x: x, y: base - ah, width: barW, height: ah }));
      }
      timeline.appendChild(svg('text', { x: 2, y: h - 3 }, 'duration per checkpoint (max ' + maxDur + ' ms); alignment in amber'));
    } else {
      timeline.appendChild(svg('text', { x: 2, y: h - 3 }, 'no checkpoint completed yet'));
    }
    const body = $('checkpoints').tBodies[0];
    clear(body);
    for (const c of cps.slice(-8).reverse()) {
      const tr = el('tr', { class: 'checkpoint-row', 'data-checkpoint': c.id });
      tr.appendChild(el('td', {}, (c.savepoint ? 'savepoint ' : '') + c.id));
      tr.appendChild(el('td', {}, c.durationMillis + ' ms'));
      tr.appendChild(el('td', {}, fmtBytes(c.sizeBytes)));
      tr.appendChild(el('td', {}, fmtNanos(c.maxAlignmentNanos)));
      tr.appendChild(el('td', {}, new Date(c.triggerEpochMillis).toLocaleTimeString()));
      body.appendChild(tr);
    }
  }

  function renderRestarts(r) {
    $('restart-count').textContent = r.count + (r.count === 1 ? ' restart' : ' restarts');
    const list = $('restarts');
    clear(list);
    if (!r.causesRecorded) {
      list.appendChild(el('li', { class: 'muted' }, 'causes not recorded: call WeirDashboard.recordFailures(pipeline) before start'));
      return;
    }
    if (r.events.length === 0) {
      list.appendChild(el('li', { class: 'muted' }, 'no failure so far'));
      return;
    }
    for (const f of r.events.slice().reverse()) {
      const li = el('li', { class: 'restart' });
      li.appendChild(el('span', {}, new Date(f.epochMillis).toLocaleTimeString()
        + (f.willRestart ? ' failed, restart ' + f.attempt + ': ' : ' failed, no restart left (the job failed): ')));
      li.appendChild(el('span', { class: 'cause' }, f.cause));
      for (const c of f.causedBy) li.appendChild(el('div', { class: 'caused-by' }, 'caused by ' + c));
      list.appendChild(li);
    }
  }

  function render(state) {
    updateRates(state);
    renderHeader(state);
    renderGuarantee(state.guarantee);
    renderGraph(state);
    renderThroughput(state);
    renderCheckpoints(state);
    renderRestarts(state.restarts);
    previous = state;
    polls++;
    document.documentElement.setAttribute('data-polls', String(polls));
  }

  async function poll() {
    try {
      const response = await fetch('api/state', { cache: 'no-store' });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      render(await response.json());
      failuresInARow = 0;
    } catch (e) {
      failuresInARow++;
      const status = $('job-status');
      status.textContent = 'no answer from the job (' + e.message + ')';
      status.className = 'status lost';
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }

  watchPaint();
  poll();
})();

// grainscope html: the report tables below the Gantt chart (EPA report, critical path, wait
// states, projected speedup), from data.tables: the JSON reports of docs/json.md, trimmed by
// report/html_report.cc. Runs in report.js's scope (page.html), using its helpers el, table,
// facts, fmtDuration and fmtPercent.
function buildTables() {
  function section(id, title, children) {
    body.appendChild(el('section', { id: id }, [el('h2', { text: title })].concat(children)));
  }
  function note(text) { return el('p', { class: 'note', text: text }); }

  // Where the time went, by the classes `report` uses (computation, MPI by kind, thread and OpenMP
  // synchronisation, GPU, idle) per location, the profile by role and the regions by exclusive
  // time: first when the trace has no grains. Classes with no time anywhere are left out.
  const tm = data.tables.time;
  function timeSection() {
    if (!tm) return;
    const classes = [['computation', 'computation'], ['point_to_point', 'MPI point-to-point'], ['collective', 'MPI collective'],
      ['synchronization', 'MPI synchronisation'], ['other_mpi', 'MPI other'], ['init_finalize', 'MPI init/finalize'],
      ['thread_sync', 'thread / OpenMP / GPU synchronisation'], ['gpu', 'GPU'], ['idle', 'idle']].filter(function (c) {
      return c[0] === 'computation' || c[0] === 'idle' || tm.time_total[c[0] + '_ns'] > 0;
    });
    const rows = tm.locations.map(function (l) {
      return [l.location].concat(classes.map(function (c) { return fmtDuration(l[c[0] + '_ns']); }));
    });
    const all = classes.reduce(function (s, c) { return s + tm.time_total[c[0] + '_ns']; }, 0);
    rows.push(['% of all'].concat(classes.map(function (c) {
      return all > 0 ? fmtPercent(tm.time_total[c[0] + '_ns'] / all) : '-';
    })));
    section('time', 'Where the time went', [
      el('h3', { text: 'Time per location (run span ' + fmtDuration(tm.span_ns) + ')' +
        (tm.locations.length < tm.location_count ? ': the first ' + tm.locations.length + ' of ' + tm.location_count : '') }),
      table(['location'].concat(classes.map(function (c) { return c[1]; })), rows, 1),
      el('h3', { text: 'Exclusive time by role' }),
      table(['role', 'regions', 'calls', 'exclusive', '% of all'], tm.roles.map(function (r) {
        return [r.role, r.regions, r.calls, fmtDuration(r.exclusive_ns), fmtPercent(r.fraction)];
      }), 1),
      el('h3', { text: tm.regions.length < tm.region_count ? 'The ' + tm.regions.length + ' regions of most exclusive time (of ' + tm.region_count + ')' : 'Regions by exclusive time' }),
      table(['region', 'class', 'calls', 'exclusive', 'inclusive', 'mean per call'], tm.regions.map(function (r) {
        return [r.region, r.class, r.calls, fmtDuration(r.exclusive_ns), fmtDuration(r.inclusive_ns), fmtDuration(r.mean_ns)];
      }), 2),
      instancesTable(),
    ].concat(gpuTables()));
  }
  // A GPU trace's ranks (their streams together), streams and kernels, as `report` lists them.
  function gpuTables() {
    const g = tm.gpu;
    if (!g) return [];
    return [
      el('h3', { text: 'GPU time per rank (% of the run span ' + fmtDuration(g.span_ns) + ')' }),
      table(['rank', 'streams', 'busy', '%', 'computation', 'communication', 'overlapped', '% of comm.', 'idle',
        'launches', 'launch CPU'], g.ranks.map(function (r) {
        return [r.rank, r.streams, fmtDuration(r.busy_ns), fmtPercent(g.span_ns > 0 ? r.busy_ns / g.span_ns : 0),
          fmtDuration(r.computation_ns), fmtDuration(r.communication_ns), fmtDuration(r.overlapped_ns),
          r.communication_ns > 0 ? fmtPercent(r.overlapped_ns / r.communication_ns) : '-', fmtDuration(r.idle_ns),
          r.launches, fmtDuration(r.launch_ns)];
      }), 1),
      el('h3', { text: 'GPU time per stream' }),
      table(['stream', 'rank', 'busy', 'computation', 'copies', 'communication'], g.streams.map(function (s) {
        return [s.stream, s.rank, fmtDuration(s.busy_ns), fmtDuration(s.computation_ns), fmtDuration(s.copy_ns),
          fmtDuration(s.communication_ns)];
      }), 2),
      el('h3', { text: (g.kernels.length < g.kernel_count ? 'The ' + g.kernels.length + ' GPU work names of most time (of ' +
        g.kernel_count + ')' : 'GPU work by name') + ', ' + fmtDuration(g.work_ns) + ' in all' }),
      table(['kernel', 'role', 'count', 'total', '% of GPU work', 'max'], g.kernels.map(function (k) {
        return [k.name, k.role, k.count, fmtDuration(k.total_ns), fmtPercent(g.work_ns > 0 ? k.total_ns / g.work_ns : 0),
          fmtDuration(k.max_ns)];
      }), 1),
    ];
  }
  // Each region's executions, the longest first, with their ids where the trace numbers them (a
  // grain site's): folded under the region table, one click away.
  function instancesTable() {
    const n = tm.instances.length;
    return el('details', { id: 'instances' }, [
      el('summary', { text: (n < tm.instance_count ? 'The ' + n + ' longest region instances (of ' + tm.instance_count +
        '; grainscope report --instances lists them all)' : 'Region instances, longest first (' + n + ')') }),
      table(['region', 'location', 'id', 'start', 'time'], tm.instances.map(function (i) {
        return [i.region, i.location, i.id === null ? '-' : i.id, fmtDuration(i.start_ns), fmtDuration(i.duration_ns)];
      }), 2),
    ]);
  }

  const p = data.tables.profile;
  if (!p) timeSection();
  if (p) {
    section('epa', 'EPA report', [
      facts([['total time', fmtDuration(p.total_ns)], ['busy (sum of grain times)', fmtDuration(p.busy_ns)],
        ['speedup', p.speedup.toFixed(2)], ['corrected speedup', p.corrected_speedup.toFixed(2)],
        ['utilisation', fmtPercent(p.utilization)], ['grain instances', String(p.grain_count)]]),
      el('h3', { text: 'Processors' }),
      table(['processor', 'busy', 'utilisation', 'grains'], p.processors.map(function (q) {
        return [q.name, fmtDuration(q.busy_ns), fmtPercent(q.utilization), q.grain_count];
      }), 1),
      el('h3', { text: p.longest_grains.length < p.grain_count ? 'The ' + p.longest_grains.length + ' longest grains' : 'Grains, longest first' }),
      table(['grain', 'name', 'processor', 'start', 'stop', 'time', '% of total'], p.longest_grains.map(function (g) {
        return [g.id, g.name, g.processor, fmtDuration(g.start_ns), fmtDuration(g.stop_ns), fmtDuration(g.time_ns), g.percent.toFixed(1)];
      }), 3),
    ]);
    timeSection();
  } else {
    section('epa', 'EPA report', [note('No grain view for this trace (see the notes below).')]);
  }

  const c = data.tables.critpath;
  if (c) {
    section('critpath', 'Critical path', [
      facts([['length', fmtDuration(c.length_ns)], ['measured span', fmtDuration(c.measured_ns)],
        ['stretches', String(c.path_stretches)], ['load balance', c.load_balance.toFixed(3)],
        ['transfer efficiency', c.transfer_efficiency.toFixed(3)], ['serialisation efficiency', c.serialization_efficiency.toFixed(3)]]),
      el('h3', { text: 'Time on the path by region' }),
      table(['region', 'time on path', 'share'], c.profile.map(function (r) { return [r.region, fmtDuration(r.time_ns), fmtPercent(r.fraction)]; }), 1),
      el('h3', { text: 'Imbalance (time on the path beyond the mean per location)' }),
      c.imbalance.length ? table(['region', 'on path', 'mean', 'imbalance'], c.imbalance.map(function (r) {
        return [r.region, fmtDuration(r.on_path_ns), fmtDuration(r.mean_ns), fmtDuration(r.imbalance_ns)];
      }), 1) : note('No region is imbalanced.'),
    ]);
  } else {
    section('critpath', 'Critical path', [note('No critical path for this trace (see the notes below).')]);
  }

  const w = data.tables.waits;
  if (w) {
    const kids = [facts([['total waiting time', fmtDuration(w.total_wait_ns)]]),
      el('h3', { text: 'Wait states' }),
      table(['kind', 'count', 'time'], w.kinds.map(function (k) { return [k.kind.replace(/_/g, ' '), k.count, fmtDuration(k.time_ns)]; }), 1),
      el('h3', { text: 'Waiting-time classes per synchronisation point' })];
    if (!w.sync_points.length) kids.push(note('Nobody waited.'));
    if (w.sync_point_count > w.sync_points.length) {
      kids.push(note('The ' + w.sync_points.length + ' synchronisation points with the most waiting, of ' + w.sync_point_count +
        ' (grainscope waits lists them all).'));
    }
    w.sync_points.forEach(function (sp) {
      kids.push(el('h4', { text: sp.label + ': ' + sp.count + ' waits, ' + fmtDuration(sp.wait_ns) +
        (sp.class_count > sp.classes.length ? ' (the ' + sp.classes.length + ' largest of ' + sp.class_count + ' classes)' : '') }));
      kids.push(table(['class', 'waits', 'time', 'cause (step: share of the excess)'], sp.classes.map(function (cl, i) {
        return [i + 1, cl.count, fmtDuration(cl.wait_ns), cl.steps.slice(0, 4).map(function (s) {
          return s.region + ' ' + s.state + ' ' + fmtPercent(s.share);
        }).join('; ')];
      }), 1));
    });
    kids.push(el('h3', { text: 'Waiting per location' }));
    kids.push(table(['location', 'waiting'], w.locations.map(function (l) { return [l.location, fmtDuration(l.wait_ns)]; }), 1));
    if (w.root_causes.length) {
      kids.push(el('h3', { text: 'Root causes (regions whose excess made others wait)' }));
      kids.push(table(['region', 'delay caused', 'share'], w.root_causes.map(function (r) {
        return [r.region, fmtDuration(r.delay_ns), fmtPercent(r.fraction)];
      }), 1));
    }
    section('waits', 'Wait states', kids);
  }

  const pr = data.tables.prediction;
  if (pr) {
    const fig = el('div', { class: 'figure' });
    fig.innerHTML = data.speedup_svg;  // generated by grainscope (report/svg.cc), names escaped there
    const runs = [pr.measured].concat(pr.actual);
    section('speedup', 'Projected speedup', [fig, note('Model: ' + pr.model + '.'),
      table(['processors', 'projected run time', 'speedup', 'lower bound', 'optimal'], pr.projections.map(function (s) {
        return [s.processors, fmtDuration(s.makespan_ns), s.speedup.toFixed(2), fmtDuration(s.lower_bound_ns),
          s.optimal ? 'yes (proven for the model)' : ''];
      }), 0),
      el('h3', { text: 'Projection against measured runs' }),
      note('Replayed: the run\'s own assignment and order in the model. The corrected error splits into the model ' +
        'error (replayed vs corrected), the times error (that replay with the measured run\'s grain times and arc ' +
        'costs) and the scheduler error (projected vs that replay).'),
      table(['run', 'processors', 'measured', 'corrected', 'replayed', 'projected', 'error', 'corrected error',
        'model error', 'times error', 'scheduler error'], runs.map(function (r) {
        return [r.file, r.processors, fmtDuration(r.measured_ns), fmtDuration(r.corrected_ns), fmtDuration(r.replayed_ns),
          fmtDuration(r.projected_ns), fmtPercent(r.error), fmtPercent(r.corrected_error), fmtPercent(r.model_error),
          r.times_compared ? fmtPercent(r.times_error) : '-', fmtPercent(r.scheduler_error)];
      }), 1)]);
  } else {
    section('speedup', 'Projected speedup', [note('No projection (see the notes below).')]);
  }
  if (data.notes.length) section('notes', 'Notes', [el('ul', null, data.notes.map(function (n) { return el('li', { text: n }); }))]);
}

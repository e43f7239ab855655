// What a reader sees in a clocktrace HTML report, as plain data for a test
// to hold against the JSON report of the same run.
(() => {
	const all = (sel) => Array.from(document.querySelectorAll(sel));
	const num = (el) => (el ? Number(el.getAttribute('data-value')) : null);
	const visible = (el) => {
		const r = el.getBoundingClientRect();
		return r.width > 0 && r.height > 0;
	};
	return {
		title: document.title,
		scripts: document.scripts.length,
		external: all('[src],link[href]').length,
		// Markup a hostile comm, path or argument would have planted.
		injected: all('script,img,iframe,object,embed,b,a,form,input').length,
		facts: {
			processes: num(document.getElementById('processes')),
			events: num(document.getElementById('events')),
			lost: num(document.getElementById('lost')),
			duration_ns: num(document.getElementById('duration')),
			command: (document.getElementById('command') || {}).textContent,
		},
		procs: all('#proctree tbody tr').map((tr) => ({
			pid: Number(tr.dataset.pid),
			depth: Number(tr.dataset.depth),
			comm: tr.cells[2].textContent.replace(/^\u2514 /, ''),
			tz: num(tr.querySelector('td.tz')),
			clock: num(tr.querySelector('td.clk')),
			exe: tr.cells[6].textContent,
		})),
		procs_not_shown: ((document.querySelector('#processes p.note') || {})
			.textContent || null),
		findings: all('.finding').map((d) => ({
			id: d.dataset.id,
			message: d.querySelector('.message').textContent,
			fix: d.querySelector('.fix').textContent.replace(/^Fix: /, ''),
			cost_ns: d.querySelector('.cost') ?
				Number(d.querySelector('.cost').dataset.kernelNs) : null,
		})),
		histograms: all('svg.hist').map((svg) => ({
			id: svg.id,
			visible: visible(svg),
			label: svg.querySelector('title').textContent,
			buckets: Array.from(svg.querySelectorAll('rect.bucket')).map((r) => ({
				lo_ns: Number(r.dataset.lo),
				count: Number(r.dataset.count),
				height: r.getBoundingClientRect().height,
			})),
		})),
		figures_without_text: all('svg[role=img]').filter((svg) =>
			!svg.querySelector('title') || !svg.querySelector('desc') ||
			!svg.getAttribute('aria-labelledby')).length,
		tz_paths: all('#tz-paths td.mono').map((td) => td.textContent),
		verdict: (document.getElementById('verdict') || {}).textContent || null,
		compare: all('#compare-table tbody tr').map((tr) => ({
			role: tr.dataset.role,
			variant: tr.dataset.variant,
			wall_ns: num(tr.cells[3]),
			tz: num(tr.cells[7]),
			speedup: num(tr.querySelector('td.speedup')),
		})),
		timeline: {
			lines: all('#fig-timeline polyline').length,
			rows: all('#timeline-table tbody tr').length,
			// Per interval: {pid: events}, from the table beside the figure.
			table: all('#timeline-table tbody tr').map((tr) => {
				const row = {};
				all('#timeline-table thead th[data-pid]').forEach((th, i) => {
					row[th.dataset.pid] = Number(tr.cells[i + 1].textContent);
				});
				return row;
			}),
		},
		libc_fns: all('#libc-fns tbody tr').map((tr) => ({
			fn: tr.dataset.fn,
			calls: Number(tr.cells[1].textContent),
			tz: Number(tr.cells[2].textContent),
		})),
		libc_sites: all('#libc-sites tbody tr').length,
		libc_sources: all('#libc-sites tbody tr').map((tr) => tr.cells[5].textContent),
		lang_sites: all('#lang-sites tbody tr').map((tr) => ({
			pid: Number(tr.cells[0].textContent),
			lang: tr.cells[1].textContent,
			line: Number(tr.dataset.line),
			in: tr.cells[3].textContent,
			tz: num(tr.cells[4]),
			clock: num(tr.cells[5]),
		})),
		page_height: document.documentElement.scrollHeight,
	};
})()

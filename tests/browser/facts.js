// What a reader sees in a clocktrace HTML report, as plain data for a test
// to hold against the JSON report of the same run.
(() => {
	const all = (sel) => Array.from(document.querySelectorAll(sel));
	const num = (el) => (el ? Number(el.getAttribute('data-value')) : null);
	const visible = (el) => {
		const r = el.getBoundingClientRect();
		return r.width > 0 && r.height > 0;
	};
	// "td.mono#x: /very/long/pa": names an element for a test's message.
	const describe = (el) => el.tagName.toLowerCase() +
		(el.id ? '#' + el.id : '') +
		(typeof el.className === 'string' && el.className ?
			'.' + el.className.trim().split(/\s+/).join('.') : '') +
		': ' + (el.textContent || '').trim().slice(0, 60);
	// Content wider than its box (a cell's text under its neighbour, a
	// scroll bar) or a box past the viewport's right or left edge.
	const overflowing = () => all('body *').filter((el) => {
		const r = el.getBoundingClientRect();

		if (!r.width && !r.height)
			return false;
		return el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 ||
			r.right > window.innerWidth + 0.5 || r.left < -0.5;
	}).map(describe);
	// "tzloop+0x1d74": 0x1d74, the site's offset in its file, or null.
	const offset_of = (text) => {
		const m = /\+0x([0-9a-f]+)$/.exec(text);

		return m ? parseInt(m[1], 16) : null;
	};
	// A cell's text as a reader gets it: a shortened one's title is the
	// whole text.
	const full = (cell) => {
		const t = cell && cell.querySelector('[title]');

		return cell ? (t ? t.getAttribute('title') : cell.textContent) : null;
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
			exe: full(tr.cells[6]),
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
		tz_paths: all('#tz-paths td.mono').map(full),
		tz_path_counts: all('#tz-paths tbody tr').map((tr) => num(tr.cells[2])),
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
		libc_sites: all('#libc-sites tbody tr').map((tr) => ({
			fn: tr.dataset.fn,
			calls: num(tr.cells[1]),
			procs: Number(tr.cells[2].textContent),
			caller: full(tr.cells[3]),
			// "tzloop+0x1d74": module (whole) and file offset.
			module: full(tr.cells[4]).replace(/(\+| at )0x[0-9a-f]+$/, ''),
			site: tr.cells[4].textContent,
			offset: offset_of(tr.cells[4].textContent),
			source: full(tr.cells[5]),
		})),
		libc_sites_more: ((document.querySelector('#libc p.note') || {})
			.textContent || null),
		lang_sites: all('#lang-sites tbody tr').map((tr) => ({
			lang: tr.cells[0].textContent,
			file: full(tr.cells[1]).replace(/:[0-9]+$/, ''),
			line: Number(tr.dataset.line),
			in: tr.cells[2].textContent,
			libc_fn: tr.cells[3].textContent.replace(/\(\)$/, ''),
			tz: num(tr.cells[4]),
			clock: num(tr.cells[5]),
			procs: Number(tr.cells[6].textContent),
		})),
		// Every table's header row, for the unit each column states.
		headers: all('thead tr').map((tr) =>
			Array.from(tr.cells).map((th) => th.textContent)),
		compare_cells: all('#compare-table tbody tr').map((tr) =>
			[3, 4, 5, 6].map((i) => tr.cells[i].textContent)),
		compare_bars: all('#fig-compare g').map((g) =>
			g.querySelectorAll('text')[1].textContent),
		page_height: document.documentElement.scrollHeight,
		viewport_width: window.innerWidth,
		page_width: document.documentElement.scrollWidth,
		overflowing: overflowing(),
	};
})()

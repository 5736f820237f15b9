// KAG learner dashboard. Every piece of learner data reaches the page through textContent,
// element properties or DOMPurify (the Mermaid SVG); never through innerHTML with data.
// The bearer token lives in sessionStorage and travels only in the Authorization header.
'use strict';

(() => {
  const TOKEN_KEY = 'kag.token';
  const LAST_ID_KEY = 'kag.lastEventId';
  const API = '/dashboard/api/';
  const RELATION_STYLE = {
    elaborates: ['#2f6fde', 'solid'],
    supports: ['#1b8a4b', 'solid'],
    contradicts: ['#c0392b', 'dashed'],
    refutes: ['#8e1b10', 'dashed'],
    depends_on: ['#8a5a00', 'solid'],
    predecessor: ['#6b7385', 'dotted'],
    successor: ['#6b7385', 'dotted'],
    example_of: ['#7b3fc4', 'dotted'],
  };
  const SECTION_WORDS = { user_profile: 'About you', current_goals: 'Your goals' };
  const state = { live: null, chart: null, cy: null, mermaidId: 0, rendering: Promise.resolve(), queued: null };

  const $ = (selector) => document.querySelector(selector);

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null) continue;
      if (key === 'text') node.textContent = String(value);
      else if (key === 'class') node.className = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else if (key === 'dataset') Object.assign(node.dataset, value);
      else node.setAttribute(key, String(value));
    }
    for (const child of children) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function show(parent, ...children) {
    parent.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));
  }

  function words(name) {
    return String(name || '').replace(/_/g, ' ');
  }

  function plural(n, one) {
    return n + ' ' + one + (n === 1 ? '' : 's');
  }

  function noteHref(id) {
    return '#/note/' + encodeURIComponent(id);
  }

  function toast(message) {
    const box = $('#toast');
    box.textContent = message;
    box.classList.add('show');
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => box.classList.remove('show'), 4000);
  }

  // ----- API -----
  function token() {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  }

  async function api(path, options) {
    const opts = Object.assign({ cache: 'no-store' }, options || {});
    opts.headers = Object.assign({}, opts.headers || {}, { Authorization: 'Bearer ' + token() });
    const response = await fetch(API + path, opts);
    if (response.status === 401) {
      logout('The server refused your token; log in again.');
      throw new Error('not authenticated');
    }
    return response;
  }

  async function getJSON(path) {
    const response = await api(path);
    const data = await response.json();
    if (!response.ok) throw new Error(data.detail || response.statusText);
    return data;
  }

  async function postJSON(path, body) {
    const response = await api(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const data = await response.json();
    if (!response.ok) throw new Error(data.detail || response.statusText);
    return data;
  }

  // ----- login -----
  async function login(event) {
    event.preventDefault();
    const value = $('#token').value.trim();
    $('#login-error').textContent = '';
    sessionStorage.setItem(TOKEN_KEY, value);
    try {
      await start();
    } catch (err) {
      sessionStorage.removeItem(TOKEN_KEY);
      $('#login-error').textContent = 'Login failed: ' + err.message;
    }
  }

  function logout(message) {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(LAST_ID_KEY);
    stopLive();
    $('#nav').hidden = true;
    $('#session').hidden = true;
    $('#whoami').textContent = '';
    delete document.body.dataset.learner;
    $('#view').hidden = true;
    $('#erase-panel').hidden = true;
    $('#login').hidden = false;
    $('#token').value = '';
    $('#login-error').textContent = message || '';
  }

  async function start() {
    const me = await getJSON('me');
    $('#whoami').textContent = me.learner_id;
    $('#login').hidden = true;
    $('#nav').hidden = false;
    $('#session').hidden = false;
    $('#view').hidden = false;
    document.body.dataset.learner = me.learner_id;
    startLive();
    if (!location.hash) location.hash = '#/notes';
    await render();
  }

  // ----- router -----
  // One page render at a time: start() renders while the hashchange it causes renders too, and a
  // learner may click on while a page loads. Run concurrently, a slower, older render would write
  // its page over the newer one; chained, the last render is always of the hash shown. A render
  // that has not started yet reads the hash when it starts, so a second request joins it.
  function render() {
    if (state.queued) return state.queued;
    const start = () => { state.queued = null; return renderHash(); };
    state.queued = state.rendering = state.rendering.then(start, start);
    return state.queued;
  }

  async function renderHash() {
    if (!token()) return;
    const hash = location.hash || '#/notes';
    const [, page, arg] = hash.match(/^#\/([a-z]+)(?:\/(.*))?$/) || [null, 'notes', null];
    for (const link of document.querySelectorAll('#nav a')) {
      link.classList.toggle('active', link.dataset.page === page || (page === 'note' && link.dataset.page === 'notes'));
    }
    if (state.chart) { state.chart.destroy(); state.chart = null; }
    if (state.cy) { state.cy.destroy(); state.cy = null; }
    const view = $('#view');
    view.dataset.ready = ''; // ready again only when this render, the latest, is done
    show(view, el('p', { class: 'empty', text: 'Loading…' }));
    view.dataset.page = page;
    try {
      if (page === 'note' && arg) await renderNote(view, decodeURIComponent(arg));
      else if (page === 'graph') await renderGraph(view);
      else if (page === 'memory') await renderMemory(view);
      else if (page === 'facts') await renderFacts(view);
      else await renderNotes(view, '');
    } catch (err) {
      show(view, el('p', { class: 'error', text: 'Could not load this page: ' + err.message }));
    }
    view.dataset.ready = page;
  }

  // ----- notes -----
  function noteCard(note, fresh) {
    const tags = el('div', {}, ...(note.tags || []).map((t) => el('span', { class: 'tag', text: t })));
    return el(
      'li',
      { class: 'note-card' + (fresh ? ' fresh' : ''), dataset: { noteId: note.id } },
      el('a', { class: 'title', href: noteHref(note.id), text: note.concept || 'Untitled note' }),
      el('p', { text: note.description || note.definition || '' }),
      tags,
      el('p', { class: 'link-count', text: plural(note.degree || 0, 'link') }),
    );
  }

  async function renderNotes(view, query) {
    const data = await getJSON('notes' + (query ? '?q=' + encodeURIComponent(query) : ''));
    const search = el('input', { type: 'search', id: 'note-query', placeholder: 'Search your notes (hybrid: meaning + words)' });
    search.value = query;
    const form = el(
      'form',
      { class: 'toolbar', id: 'note-search', onsubmit: (e) => { e.preventDefault(); renderNotes(view, search.value.trim()); } },
      search,
      el('button', { type: 'submit', class: 'primary', text: 'Search' }),
      el('button', { type: 'button', id: 'export', text: 'Export Markdown (.zip)', onclick: exportNotes }),
    );
    const list = el('ul', { class: 'cards', id: 'note-list' }, ...data.notes.map((n) => noteCard(n, false)));
    const empty = data.notes.length ? null : el('p', { class: 'empty', id: 'no-notes', text: query ? 'No note matches.' : 'No notes yet. Finish a session and they appear here, live.' });
    show(view, el('h2', { text: query ? 'Notes matching “' + query + '”' : 'Your notes' }), form, empty, list);
  }

  async function exportNotes() {
    const response = await api('export');
    if (!response.ok) { toast('Export failed'); return; }
    const blob = await response.blob();
    const url = URL.createObjectURL(blob);
    const link = el('a', { href: url, download: 'kag-notes.zip' });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    toast('Exported your notes as Markdown');
  }

  async function renderNote(view, id) {
    const response = await api('notes/' + encodeURIComponent(id));
    if (response.status === 404) {
      show(view, el('p', { class: 'empty', text: 'No such note.' }));
      return;
    }
    const note = await response.json();
    if (!response.ok) throw new Error(note.detail || response.statusText);
    const block = (title, text, cls) => (text ? el('section', { class: cls }, el('h3', { text: title }), el('p', { text })) : null);
    const mapBox = el('div', { id: 'concept-map', class: 'mermaid-box' });
    const links = el(
      'ul',
      { class: 'links', id: 'note-links' },
      ...(note.links || []).map((link) =>
        el(
          'li',
          {},
          el('span', { class: 'relation', text: words(link.relation) + (link.mirrored ? ' ↔' : link.outgoing ? ' →' : ' ←') }),
          el('a', { href: noteHref(link.id), text: link.concept || 'Untitled note' }),
          link.rationale ? el('span', { class: 'muted', text: ' — ' + link.rationale }) : null,
        ),
      ),
    );
    show(view, 
      el(
        'article',
        { class: 'note', dataset: { noteId: note.id } },
        el('p', {}, el('a', { href: '#/notes', text: '← all notes' })),
        el('h2', { id: 'note-title', text: note.concept || 'Untitled note' }),
        el('div', {}, ...(note.tags || []).map((t) => el('span', { class: 'tag', text: t }))),
        block('Definition', note.definition, 'definition'),
        block('Example', note.personal_example, 'example'),
        block('Insight', note.key_insight, 'insight'),
        el('section', {}, el('h3', { text: 'Concept map' }), mapBox),
        el('section', {}, el('h3', { text: plural((note.links || []).length, 'link') }), note.links && note.links.length ? links : el('p', { class: 'empty', text: 'No links yet.' })),
      ),
    );
    await renderMermaid(mapBox, note.concept_map || '');
  }

  async function renderMermaid(box, source) {
    if (!source.trim()) {
      box.replaceChildren(el('p', { class: 'empty', text: 'This note has no concept map.' }));
      return;
    }
    try {
      window.mermaid.initialize({
        startOnLoad: false,
        securityLevel: 'strict',
        htmlLabels: false,
        flowchart: { htmlLabels: false },
        theme: 'default',
      });
      state.mermaidId += 1;
      const { svg } = await window.mermaid.render('kag-map-' + state.mermaidId, source);
      const clean = window.DOMPurify.sanitize(svg, {
        USE_PROFILES: { svg: true, svgFilters: true },
        ADD_TAGS: ['style'],
        RETURN_DOM_FRAGMENT: true,
      });
      box.replaceChildren(clean);
      box.dataset.rendered = 'svg';
    } catch (err) {
      box.replaceChildren(el('p', { class: 'error', text: 'The concept map did not render: ' + (err.message || err) }), el('pre', { text: source }));
      box.dataset.rendered = 'error';
    }
  }

  // ----- knowledge graph -----
  async function renderGraph(view) {
    const data = await getJSON('graph');
    const legend = el(
      'p',
      { class: 'legend' },
      ...Object.entries(RELATION_STYLE).map(([name, [color, line]]) => el('span', {}, el('i', { style: 'border-top-color:' + color + ';border-top-style:' + line }), words(name))),
    );
    const box = el('div', { id: 'cy' });
    const count = el('p', { class: 'muted', id: 'graph-count', text: plural(data.nodes.length, 'note') + ', ' + plural(data.edges.length, 'link') + ' · a bigger note is one you use more · click a note to open it' });
    show(view, el('h2', { text: 'Knowledge graph' }), count, legend, box);
    if (!data.nodes.length) {
      box.replaceChildren(el('p', { class: 'empty', text: 'No notes yet.' }));
      return;
    }
    const size = (n) => 24 + 12 * Math.sqrt(typeof n.activation === 'number' ? Math.max(0, n.activation) : n.degree || 0);
    const elements = [
      ...data.nodes.map((n) => ({ data: { id: n.id, label: n.concept || 'Untitled note', size: size(n) } })),
      ...data.edges.map((e) => ({
        data: {
          id: e.id, source: e.source, target: e.target, relation: e.relation,
          color: (RELATION_STYLE[e.relation] || ['#999'])[0],
          line: (RELATION_STYLE[e.relation] || [null, 'solid'])[1],
          arrow: e.directional ? 'triangle' : 'none',
          width: 1 + 3 * Math.min(1, Math.max(0, e.weight || 0)),
        },
      })),
    ];
    state.cy = window.cytoscape({
      container: box,
      elements,
      maxZoom: 2.2,
      minZoom: 0.2,
      layout: { name: 'cose', animate: false, nodeRepulsion: 400000, idealEdgeLength: 110, nodeOverlap: 20, componentSpacing: 90, padding: 50 },
      style: [
        { selector: 'node', style: { label: 'data(label)', width: 'data(size)', height: 'data(size)', 'background-color': '#2f6fde', color: '#1d2433', 'font-size': 12, 'text-valign': 'bottom', 'text-margin-y': 4, 'text-wrap': 'wrap', 'text-max-width': 140 } },
        { selector: 'edge', style: { 'line-color': 'data(color)', 'line-style': 'data(line)', width: 'data(width)', 'curve-style': 'bezier', 'target-arrow-shape': 'data(arrow)', 'target-arrow-color': 'data(color)' } },
      ],
    });
    state.cy.on('tap', 'node', (event) => { location.hash = noteHref(event.target.id()); });
    window.__kagGraph = { nodes: data.nodes.length, edges: data.edges.length };
  }

  // ----- memory -----
  async function renderMemory(view) {
    const [core, activity, archive] = await Promise.all([getJSON('memory'), getJSON('activity'), getJSON('summaries')]);
    const sections = Object.entries(core.sections).map(([name, text]) => sectionEditor(name, text, core.limit));
    const canvas = el('canvas', { id: 'activity-chart' });
    const summaries = archive.summaries.map((s) =>
      el(
        'details',
        { class: 'summary' },
        el('summary', { text: (s.day ? s.day + ' · ' : '') + (s.text || '') }),
        el('p', { class: 'muted', text: plural(s.turn_count, 'turn') + ' summarised' }),
        ...s.turns.map((t) => el('p', { class: 'turn' }, el('b', { text: (t.role === 'user' ? 'You' : 'Tutor') + ':' }), ' ' + t.content)),
      ),
    );
    const list = (id, items, empty) =>
      items.length ? el('ul', { id, class: 'plain' }, ...items.map((text) => el('li', { text }))) : el('p', { class: 'empty', id, text: empty });
    show(view,
      el('h2', { text: 'What you learned, when' }),
      el('div', { class: 'chart-box' }, canvas),
      el(
        'div',
        { class: 'columns' },
        el('section', {}, el('h3', { text: 'Due' }), list('due', activity.due.map((r) => r.summary), 'Nothing is due.')),
        el('section', {}, el('h3', { text: 'What came back' }), list('recalled', activity.recalled.map((r) => r.text + ' (' + r.day + ')'), 'Nothing came back yet.')),
      ),
      el('h2', { text: 'Your sessions' }),
      list('sessions', activity.sessions.map((x) => x.name + ' — ' + plural(x.turns, 'turn') + (x.notes.length ? ', ' + plural(x.notes.length, 'note') : '')), 'No sessions yet.'),
      el('h2', { text: 'What the tutor keeps in mind' }),
      el('p', { class: 'muted', text: 'Pinned about you. Edits go through the same rules as the tutor\u2019s own (at most ' + core.limit + ' characters per part).' }),
      ...sections,
      el('h2', { text: 'Earlier sessions, summarised' }),
      ...(summaries.length ? summaries : [el('p', { class: 'empty', text: 'No summaries yet.' })]),
    );
    drawActivity(canvas, activity.days);
  }

  function sectionEditor(name, text, limit) {
    let original = text;
    const area = el('textarea', { id: 'core-' + name, spellcheck: 'false' });
    area.value = text;
    const counter = el('span', { class: 'muted' });
    const status = el('p', { class: 'status', id: 'core-status-' + name });
    const count = () => { counter.textContent = ' ' + [...area.value].length + ' / ' + limit; };
    area.addEventListener('input', count);
    count();
    const save = async () => {
      status.className = 'status';
      status.textContent = 'Saving…';
      try {
        const data = await postJSON('memory/' + encodeURIComponent(name), { old: original, new: area.value });
        original = data.sections[name] || '';
        area.value = original;
        count();
        status.className = 'status ok';
        status.textContent = 'Saved.';
      } catch (err) {
        status.className = 'status error';
        status.textContent = err.message;
      }
    };
    return el(
      'div',
      { class: 'section-edit', dataset: { section: name } },
      el('h3', {}, SECTION_WORDS[name] || words(name), counter),
      area,
      el('button', { type: 'button', class: 'primary', id: 'save-' + name, text: 'Save', onclick: save }),
      status,
    );
  }

  function drawActivity(canvas, days) {
    const series = [
      ['notes', 'Notes written', '#2f6fde'],
      ['facts', 'Things you told me', '#1b8a4b'],
      ['recalled', 'Came back', '#8a5a00'],
    ];
    state.chart = new window.Chart(canvas, {
      type: 'bar',
      data: {
        labels: days.map((d) => d.label),
        datasets: series.map(([key, label, color]) => ({ label, data: days.map((d) => d[key]), backgroundColor: color })),
      },
      options: {
        maintainAspectRatio: false,
        animation: false,
        scales: { y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'how many' } } },
      },
    });
    canvas.dataset.days = String(days.length);
  }

  // ----- facts and reminders -----
  async function renderFacts(view) {
    const [facts, reminders] = await Promise.all([getJSON('facts'), getJSON('reminders')]);
    const parts = [el('h2', { text: 'Facts' })];
    if (!facts.slots.length) parts.push(el('p', { class: 'empty', id: 'no-facts', text: 'No facts yet.' }));
    else {
      parts.push(
        el(
          'table',
          { id: 'facts' },
          el('tr', {}, el('th', { text: 'About' }), el('th', { text: 'Now' }), el('th', { text: 'Before' })),
          ...facts.slots.map((slot) =>
            el(
              'tr',
              {},
              el('td', { text: slot.about }),
              el('td', { text: slot.current ? slot.current.summary : 'no longer true' }),
              el('td', {}, ...slot.history.map((h) => el('div', { text: h.summary }))),
            ),
          ),
        ),
      );
    }
    parts.push(el('h2', { text: 'Reminders' }));
    const titles = { pending: 'Waiting', triggered: 'Came up', resolved: 'Done' };
    for (const status of ['pending', 'triggered', 'resolved']) {
      const items = reminders[status] || [];
      parts.push(el('h3', { text: titles[status] + ' (' + items.length + ')' }));
      parts.push(
        el(
          'ul',
          { id: 'reminders-' + status },
          ...items.map((r) => el('li', { text: r.summary + (r.set_on ? ' (set ' + r.set_on + ')' : '') })),
        ),
      );
    }
    show(view, ...parts);
  }

  // ----- live notes (SSE over fetch, so the token travels in a header) -----
  function setLive(text, on) {
    const pill = $('#live-status');
    pill.textContent = text;
    pill.className = 'pill ' + (on ? 'on' : 'off');
  }

  function stopLive() {
    if (state.live) state.live.abort();
    state.live = null;
    setLive('offline', false);
  }

  function startLive() {
    stopLive();
    const controller = new AbortController();
    state.live = controller;
    (async () => {
      while (!controller.signal.aborted) {
        try {
          const headers = { Authorization: 'Bearer ' + token(), Accept: 'text/event-stream' };
          const last = sessionStorage.getItem(LAST_ID_KEY);
          if (last) headers['Last-Event-ID'] = last;
          const response = await fetch(API + 'live', { headers, signal: controller.signal, cache: 'no-store' });
          if (response.status === 401) { logout('The server refused your token; log in again.'); return; }
          if (!response.ok || !response.body) throw new Error('live stream: ' + response.status);
          setLive('live', true);
          await readEvents(response.body.getReader(), controller.signal);
        } catch (err) {
          if (controller.signal.aborted) return;
        }
        setLive('reconnecting', false);
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    })();
  }

  async function readEvents(reader, signal) {
    const decoder = new TextDecoder();
    let buffer = '';
    while (!signal.aborted) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = { event: 'message', id: null, data: '' };
        for (const line of frame.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') event.id = val;
          else if (field === 'event') event.event = val;
          else if (field === 'data') event.data += (event.data ? '\n' : '') + val;
        }
        if (event.id) sessionStorage.setItem(LAST_ID_KEY, event.id);
        if (event.event === 'ARTIFACT_READY' && event.data) await onArtifact(JSON.parse(event.data));
      }
    }
  }

  async function onArtifact(artifact) {
    window.__kagLiveCount = (window.__kagLiveCount || 0) + 1;
    const concept = String(artifact.content || '').split(':')[0];
    toast('New note: ' + concept);
    const list = document.getElementById('note-list');
    if (!list || $('#note-query').value) return;
    if (list.querySelector('[data-note-id="' + CSS.escape(artifact.note_id) + '"]')) return;
    try {
      const note = await getJSON('notes/' + encodeURIComponent(artifact.note_id));
      const empty = document.getElementById('no-notes');
      if (empty) empty.remove();
      list.prepend(noteCard(note, true));
      await refreshLinkCounts(list);
    } catch (err) {
      /* the note list refreshes on the next visit */
    }
  }

  // A new note links to notes whose cards are already on screen: count their links again,
  // so no card says "0 links" while its page lists one.
  async function refreshLinkCounts(list) {
    const data = await getJSON('notes');
    for (const note of data.notes) {
      const card = list.querySelector('[data-note-id="' + CSS.escape(note.id) + '"] .link-count');
      if (card) card.textContent = plural(note.degree || 0, 'link');
    }
  }

  // ----- erasure -----
  async function erase() {
    $('#erase-error').textContent = '';
    try {
      await postJSON('erase', { confirm: $('#erase-confirm').value });
      sessionStorage.removeItem(LAST_ID_KEY);
      $('#erase-panel').hidden = true;
      $('#erase-confirm').value = '';
      $('#erase-go').disabled = true;
      toast('All your data was erased.');
      startLive();
      await render();
    } catch (err) {
      $('#erase-error').textContent = err.message;
    }
  }

  function boot() {
    $('#login-form').addEventListener('submit', login);
    $('#logout').addEventListener('click', () => logout(''));
    $('#erase-open').addEventListener('click', () => {
      if (!token()) return; // only a logged-in learner can reach the erase panel
      $('#erase-panel').hidden = false;
      $('#erase-confirm').focus();
    });
    $('#erase-cancel').addEventListener('click', () => { $('#erase-panel').hidden = true; });
    $('#erase-confirm').addEventListener('input', () => { $('#erase-go').disabled = $('#erase-confirm').value !== 'DELETE'; });
    $('#erase-go').addEventListener('click', erase);
    window.addEventListener('hashchange', render);
    if (token()) start().catch(() => logout('Log in again.'));
  }

  boot();
})();

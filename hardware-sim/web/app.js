// The simulated fleet's page. Everything it shows comes from the simulator's control API
// (docs/simulator.md): GET /lockers, /lockers/{id}, /lockers/{id}/cells, /lockers/{id}/cloud,
// and the live log from the server-sent events of /lockers/{id}/stream.

const $ = (selector) => document.querySelector(selector);
/** How often the fleet and an open locker are read again (the live log needs no polling). */
const REFRESH_MS = 2000;
/** Log lines kept on the page. */
const LOG_LINES = 400;

async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(json.error ?? `${res.status} ${res.statusText}`), { status: res.status });
  return json;
}

/** Builds an element; text only through textContent, never markup. */
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  e.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return e;
}

const lockerPath = (id) => `/lockers/${encodeURIComponent(id)}`;

function showProblem(err) {
  const p = $('#problem');
  p.textContent = err ? (err.message ?? String(err)) : '';
  p.hidden = !err;
}

/** Runs a page action; its failure (a closed door, a refused order…) is said, not thrown away. */
async function act(fn) {
  try {
    showProblem(undefined);
    await fn();
  } catch (err) {
    showProblem(err);
  } finally {
    queueRefresh();
  }
}

/** Re-renders `container` only when its data changed, keeping keyboard focus where it was. */
function renderIfChanged(container, data, render) {
  const json = JSON.stringify(data);
  if (container.dataset.rendered === json) return;
  container.dataset.rendered = json;
  const focused =
    document.activeElement && container.contains(document.activeElement)
      ? document.activeElement.dataset.focusKey
      : undefined;
  container.replaceChildren(...render());
  if (focused) container.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
}

// ---- the fleet -------------------------------------------------------------------------

let fleet = [];

async function loadFleet() {
  fleet = await api('GET', '/lockers');
  renderFleet();
}

function faultsOf(l) {
  const faults = [];
  const silent = l.boards.filter((b) => b.silent).map((b) => b.address);
  if (silent.length) faults.push(`board ${silent.join(', ')} silent`);
  if (l.cells.jammed) faults.push(`${l.cells.jammed} jammed`);
  if (l.cells.broken) faults.push(`${l.cells.broken} out of order`);
  if (l.cells.unknown) faults.push(`${l.cells.unknown} unknown`);
  if (l.network === 'cut') faults.push('network cut');
  return faults;
}

function stateBadge(state) {
  return el('span', { class: `badge state-${state}`, text: state });
}

function renderFleet() {
  const q = $('#search').value.trim().toLowerCase();
  const shown = fleet.filter((l) => !q || l.id.toLowerCase().includes(q) || (l.title ?? '').toLowerCase().includes(q));
  $('#fleet-count').textContent = `${shown.length} of ${fleet.length} lockers`;
  renderIfChanged($('#fleet-list'), shown, () =>
    shown.map((l) => {
      const faults = faultsOf(l);
      return el(
        'li',
        {},
        el(
          'a',
          {
            class: 'locker-card',
            href: `#${lockerPath(l.id)}`,
            dataset: { locker: l.id, state: l.state, focusKey: l.id },
          },
          el('span', { class: 'card-title', text: l.title ?? l.id }),
          l.title ? el('span', { class: 'card-id', text: l.id }) : null,
          el(
            'span',
            { class: 'card-line' },
            stateBadge(l.state),
            ` ${l.cells.parcels} of ${l.cells.total} cells in use`,
          ),
          el('span', {
            class: faults.length ? 'card-line faults' : 'card-line',
            text: faults.length ? `Faults: ${faults.join(', ')}` : 'No faults',
          }),
        ),
      );
    }),
  );
}

// ---- one locker ------------------------------------------------------------------------

const SIZE_UNITS = { S: 1, M: 2, L: 3, XL: 4 };

const open = {
  id: undefined,
  summary: undefined,
  cells: undefined,
  selected: undefined,
  source: undefined,
  timer: undefined,
  refreshing: false,
  again: false,
};

/** What the cell shows a person in front of it, and what the locker itself knows. */
function cellFacts(hw, agent) {
  const facts = [hw.doorClosed ? 'door closed' : 'door open', hw.parcel ? 'parcel inside' : 'empty'];
  if (hw.jammed) facts.push('lock jammed');
  if (agent?.state === 'UNKNOWN') facts.push('unknown to the locker (board silent)');
  if (agent?.state === 'BROKEN') facts.push('out of order');
  return facts;
}

function renderFront() {
  const agentCells = new Map((open.cells?.agent ?? []).map((c) => [c.cellId, c]));
  const hardware = open.cells?.hardware ?? [];
  const boards = [...new Set(hardware.map((c) => c.board))].sort((a, b) => a - b);
  const data = { hardware, agent: [...agentCells.values()], selected: open.selected };
  renderIfChanged($('#front'), data, () =>
    boards.map((board) =>
      el(
        'div',
        { class: 'board', role: 'group', 'aria-label': `Board ${board}` },
        el('p', { class: 'board-name', text: `Board ${board}` }),
        el(
          'div',
          { class: 'cells' },
          ...hardware
            .filter((c) => c.board === board)
            .sort((a, b) => a.lock - b.lock)
            .map((hw) => {
              const agent = agentCells.get(hw.cellId);
              const state = agent?.state ?? 'UNKNOWN';
              const facts = cellFacts(hw, agent);
              // A word on the door; the parcel is drawn as a box, the whole sentence is the label.
              const short =
                state === 'UNKNOWN'
                  ? '?'
                  : state === 'BROKEN'
                    ? 'fault'
                    : hw.jammed
                      ? 'jammed'
                      : hw.doorClosed
                        ? ''
                        : 'open';
              return el(
                'button',
                {
                  type: 'button',
                  class: `cell size-${hw.size}`,
                  'aria-pressed': open.selected === hw.cellId ? 'true' : 'false',
                  'aria-label': `Cell ${hw.cellId}, size ${hw.size}: ${facts.join(', ')}`,
                  dataset: {
                    cell: hw.cellId,
                    focusKey: hw.cellId,
                    door: hw.doorClosed ? 'closed' : 'open',
                    parcel: hw.parcel ? 'yes' : 'no',
                    jammed: hw.jammed ? 'yes' : 'no',
                    state,
                    units: String(SIZE_UNITS[hw.size] ?? 1),
                  },
                  onclick: () => select(hw.cellId),
                },
                el('span', { class: 'cell-number', text: hw.cellId }),
                el('span', { class: 'cell-size', text: hw.size }),
                el('span', { class: 'cell-state', text: short }),
              );
            }),
        ),
      ),
    ),
  );
}

function select(cellId) {
  open.selected = open.selected === cellId ? undefined : cellId;
  renderFront();
  renderHands();
}

function renderHands() {
  const hw = open.cells?.hardware.find((c) => c.cellId === open.selected);
  const agent = open.cells?.agent.find((c) => c.cellId === open.selected);
  $('#selected').textContent = hw
    ? `Cell ${hw.cellId} (${hw.size}): ${cellFacts(hw, agent).join(', ')}.`
    : 'Select a cell on the front.';
  $('#parcel-in').disabled = !hw || hw.doorClosed || hw.parcel;
  $('#parcel-out').disabled = !hw || hw.doorClosed || !hw.parcel;
  $('#close-door').disabled = !hw || hw.doorClosed;
  $('#jam').disabled = !hw;
  $('#jam').textContent = hw?.jammed ? 'Free lock' : 'Jam lock';
}

function renderSummary() {
  const s = open.summary;
  $('#locker-title').textContent = s.title ? `${s.title} (${s.id})` : s.id;
  const state = $('#locker-state');
  const where =
    s.network === null
      ? 'no cloud link'
      : s.cloudOnline === null
        ? `network ${s.network}`
        : `the cloud sees it ${s.cloudOnline ? 'online' : 'offline'}; network ${s.network}`;
  state.replaceChildren(
    stateBadge(s.state),
    ` ${where} · agent ${s.agentPid ? `pid ${s.agentPid}` : 'in-process'} · sync version ${s.syncVersion ?? '?'}`,
  );
  $('#network').hidden = s.network === null;
  $('#network').textContent = s.network === 'cut' ? 'Restore network' : 'Cut network';
  renderIfChanged($('#boards'), s.boards, () =>
    s.boards.map((b) =>
      el(
        'div',
        { class: 'board-faults', role: 'group', 'aria-label': `Board ${b.address}` },
        el('span', {
          text: `Board ${b.address}: ${b.silent ? 'silent' : 'answers'}${b.replyDelayMs ? `, ${b.replyDelayMs} ms late` : ''}`,
        }),
        el('button', {
          type: 'button',
          dataset: { focusKey: `silence-${b.address}` },
          text: b.silent ? `Wake board ${b.address}` : `Silence board ${b.address}`,
          onclick: () =>
            act(() => api('POST', `${lockerPath(open.id)}/boards/${b.address}/silence`, { silent: !b.silent })),
        }),
        el(
          'form',
          {
            class: 'delay',
            onsubmit: (ev) => {
              ev.preventDefault();
              const ms = Number(ev.target.elements.ms.value);
              act(() => api('POST', `${lockerPath(open.id)}/boards/${b.address}/delay`, { ms }));
            },
          },
          el('label', { for: `delay-${b.address}`, text: `Reply delay of board ${b.address} (ms)` }),
          el('input', {
            id: `delay-${b.address}`,
            name: 'ms',
            type: 'number',
            min: '0',
            max: '10000',
            step: '10',
            value: String(b.replyDelayMs),
            dataset: { focusKey: `delay-${b.address}` },
          }),
          el('button', { type: 'submit', dataset: { focusKey: `delay-set-${b.address}` }, text: 'Set delay' }),
        ),
      ),
    ),
  );
}

const money = (minor) => (minor / 100).toFixed(2);

function renderCloud(cloud, problem) {
  const table = $('#orders');
  $('#test-order').hidden = !cloud;
  table.hidden = !cloud;
  if (!cloud) {
    $('#cloud-note').textContent = problem ?? '';
    return;
  }
  $('#cloud-note').textContent = cloud.orders.length
    ? `Newest first; the cloud sees the locker ${cloud.online ? 'online' : 'offline'}.`
    : 'No orders at this locker yet.';
  renderIfChanged(table.tBodies[0], cloud.orders, () =>
    cloud.orders.map((o) =>
      el(
        'tr',
        { dataset: { order: o.orderId, status: o.status } },
        el('td', { class: 'mono', text: o.orderId }),
        el(
          'td',
          {},
          el('span', {
            class: `badge status-${o.status}`,
            text: o.kind === 'RETURN' ? `${o.status} · return` : o.status,
          }),
        ),
        el('td', { text: o.cell ?? '–' }),
        el('td', { text: o.endDateTime ? new Date(o.endDateTime).toLocaleString() : '–' }),
        el('td', { text: o.notPaidAmount ? money(o.notPaidAmount) : '–' }),
      ),
    ),
  );
}

function showDisplay(line) {
  $('#display').textContent = line ?? '';
}

function appendLog(entry) {
  const log = $('#log');
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
  const time = new Date(entry.at).toLocaleTimeString([], { hour12: false });
  log.append(
    el(
      'li',
      { dataset: { kind: entry.kind, seq: String(entry.seq) } },
      el('time', { datetime: entry.at, text: time }),
      el('span', { class: 'kind', text: entry.kind }),
      el('span', { class: 'text', text: entry.text }),
    ),
  );
  while (log.children.length > LOG_LINES) log.firstElementChild.remove();
  if (atBottom) log.scrollTop = log.scrollHeight;
}

/** Reads the open locker again; calls that come meanwhile make one more round, not many. */
async function refreshLocker() {
  if (open.id === undefined) return;
  if (open.refreshing) return void (open.again = true);
  open.refreshing = true;
  const id = open.id;
  try {
    const [summary, cells, cloud] = await Promise.all([
      api('GET', lockerPath(id)),
      api('GET', `${lockerPath(id)}/cells`),
      api('GET', `${lockerPath(id)}/cloud`).catch((err) =>
        err.status === 409 || err.status === 404 ? { problem: err.message } : Promise.reject(err),
      ),
    ]);
    if (id !== open.id) return;
    open.summary = summary;
    open.cells = cells;
    renderSummary();
    renderFront();
    renderHands();
    renderCloud(cloud.problem ? undefined : cloud, cloud.problem);
  } catch (err) {
    showProblem(err);
  } finally {
    open.refreshing = false;
    if (open.again) {
      open.again = false;
      void refreshLocker();
    }
  }
}

let queued;
function queueRefresh() {
  if (open.id === undefined) return void loadFleet().catch(showProblem);
  clearTimeout(queued);
  queued = setTimeout(refreshLocker, 60);
}

async function openLocker(id) {
  open.id = id;
  open.selected = undefined;
  $('#fleet').hidden = true;
  $('#locker').hidden = false;
  $('#log').replaceChildren();
  for (const c of [$('#front'), $('#boards'), $('#orders').tBodies[0]]) delete c.dataset.rendered;
  $('#created').textContent = '';
  showDisplay('');
  await refreshLocker();
  if (open.id !== id) return;
  // The line shown now, even if it came before the kept log (the stream updates it from here).
  showDisplay(open.summary?.display ?? '');
  $('#locker-title').focus();
  // EventSource reconnects by itself and sends Last-Event-ID: nothing is shown twice.
  const source = new EventSource(`${lockerPath(id)}/stream`);
  open.source = source;
  source.addEventListener('entry', (ev) => {
    const entry = JSON.parse(ev.data);
    appendLog(entry);
    if (entry.kind === 'display') showDisplay(entry.text);
    queueRefresh();
  });
  source.addEventListener('open', () => ($('#stream-state').textContent = 'Live.'));
  source.addEventListener('error', () => ($('#stream-state').textContent = 'Live log interrupted: reconnecting…'));
  open.timer = setInterval(refreshLocker, REFRESH_MS);
}

function closeLocker() {
  open.source?.close();
  clearInterval(open.timer);
  Object.assign(open, { id: undefined, source: undefined, timer: undefined, summary: undefined, cells: undefined });
}

// ---- wiring ----------------------------------------------------------------------------

let fleetTimer;

function route() {
  closeLocker();
  clearInterval(fleetTimer);
  showProblem(undefined);
  const m = /^#\/lockers\/(.+)$/.exec(location.hash);
  if (m) return void openLocker(decodeURIComponent(m[1]));
  $('#locker').hidden = true;
  $('#fleet').hidden = false;
  loadFleet().catch(showProblem);
  fleetTimer = setInterval(() => loadFleet().catch(showProblem), REFRESH_MS);
}

function wire() {
  $('#search').addEventListener('input', renderFleet);

  const code = $('#code');
  $('#keypad').addEventListener('click', (ev) => {
    const key = ev.target.closest('button[data-key]')?.dataset.key;
    if (key === undefined) return;
    code.value = key === 'back' ? code.value.slice(0, -1) : (code.value + key).slice(0, 16);
  });
  $('#keypad').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const typed = code.value;
    code.value = '';
    // The answer shows on the display as the locker shows it (the live log carries it).
    act(() => api('POST', `${lockerPath(open.id)}/keypad`, { code: typed, waitMs: 0 }));
  });

  const cellAction = (suffix, body) => () =>
    act(() => api('POST', `${lockerPath(open.id)}/cells/${encodeURIComponent(open.selected)}/${suffix}`, body?.()));
  $('#parcel-in').addEventListener(
    'click',
    cellAction('parcel', () => ({ present: true })),
  );
  $('#parcel-out').addEventListener(
    'click',
    cellAction('parcel', () => ({ present: false })),
  );
  $('#close-door').addEventListener('click', cellAction('close'));
  $('#jam').addEventListener(
    'click',
    cellAction('jam', () => ({ jammed: !open.cells.hardware.find((c) => c.cellId === open.selected)?.jammed })),
  );

  $('#network').addEventListener('click', () =>
    act(() => api('POST', `${lockerPath(open.id)}/network`, { online: open.summary?.network === 'cut' })),
  );
  $('#restart').addEventListener('click', () =>
    act(() => api('POST', `${lockerPath(open.id)}/agent/restart`, { kill: false })),
  );
  $('#kill').addEventListener('click', () =>
    act(() => api('POST', `${lockerPath(open.id)}/agent/restart`, { kill: true })),
  );

  $('#create-order').addEventListener('click', () =>
    act(async () => {
      const made = await api('POST', `${lockerPath(open.id)}/cloud/orders`, { pay: $('#test-paid').checked });
      // Shown here once, for the tester to type; never in the log.
      $('#created').textContent =
        `Test order ${made.orderId}: DOWN ${made.codes.DOWN}, UP ${made.codes.UP}, SUBTRACT ${made.codes.SUBTRACT}`;
    }),
  );

  window.addEventListener('hashchange', route);
  route();
}

wire();

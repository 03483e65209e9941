// The delayqueue dashboard: a small script over the JSON API next to this page.
// Everything shown is inserted as text (textContent), never as HTML: payloads, headers,
// ids and queue names are user data.
(function () {
  'use strict';
  var session = { canWrite: false };
  var main = document.getElementById('main');

  // Characters that reorder or hide text (bidi controls, zero-width characters, other
  // control characters but tab and newline) are shown as their code point, so that an id
  // like 'invoice-\u202Efdp.exe' never reads 'invoice-exe.pdf'.
  var HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g;
  function visible(text) {
    return text === null || text === undefined ? text : String(text).replace(HIDDEN, function (c) {
      return '\u27e6U+' + ('0000' + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + '\u27e7';
    });
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === 'text') { node.textContent = visible(attrs[name]); }
      else if (name === 'onclick') { node.addEventListener('click', attrs[name]); }
      else { node.setAttribute(name, attrs[name]); }
    });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === 'string' ? document.createTextNode(visible(child)) : child);
    });
    return node;
  }

  function notice(text, error) {
    var box = document.getElementById('notice');
    box.textContent = visible(text || '');
    box.className = error ? 'error' : '';
  }

  // A region whose content overflows it (a payload preview, headers, a stack trace) is
  // reached with the keyboard (tabindex 0, so it scrolls with the arrow keys) and named
  // for screen readers (role region, its data-label); one that fits is left a plain
  // element, so that the page has no needless tab stops. Checked after each render, when
  // a disclosure opens and when the window is resized.
  function markScrollables(root) {
    root.querySelectorAll('pre, [data-label]').forEach(function (node) {
      var style = window.getComputedStyle(node);
      var scrolls = (/auto|scroll/.test(style.overflowY) && node.scrollHeight > node.clientHeight + 1)
        || (/auto|scroll/.test(style.overflowX) && node.scrollWidth > node.clientWidth + 1);
      if (scrolls) {
        node.setAttribute('tabindex', '0');
        node.setAttribute('role', 'region');
        node.setAttribute('aria-label', visible(node.getAttribute('data-label') || 'Scrolling text'));
      }
      else if (node.getAttribute('role') === 'region') {
        node.removeAttribute('tabindex');
        node.removeAttribute('role');
        node.removeAttribute('aria-label');
      }
    });
  }

  // ---- numbers, times and durations as people read them
  var numbers = new Intl.NumberFormat();
  var zone = (window.localStorage && window.localStorage.getItem('delayqueue.zone')) || 'local';

  function count(value) {
    return value === null || value === undefined || value === '' || value < 0 ? '\u2013' : numbers.format(value);
  }

  function trim(value) { return String(Number(value.toFixed(1))); }

  // 850 ms, 5.9 s, 3.5 min, 2 h, 3.2 d
  function duration(ms) {
    if (ms === null || ms === undefined || ms < 0) { return '\u2013'; }
    if (ms < 1000) { return Math.round(ms) + ' ms'; }
    if (ms < 60000) { return trim(ms / 1000) + ' s'; }
    if (ms < 3600000) { return trim(ms / 60000) + ' min'; }
    if (ms < 86400000) { return trim(ms / 3600000) + ' h'; }
    return trim(ms / 86400000) + ' d';
  }

  function absolute(iso) {
    var date = new Date(iso);
    if (zone === 'UTC') { return date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'); }
    return date.toLocaleString();
  }

  // "in 29 min" or "3 s ago", the absolute time (in the chosen zone) on hover
  function relative(iso) {
    var diff = Date.parse(iso) - Date.now();
    return Math.abs(diff) < 1000 ? 'now' : (diff > 0 ? 'in ' + duration(diff) : duration(-diff) + ' ago');
  }

  function when(iso) {
    if (!iso) { return el('span', { text: '\u2013' }); }
    return el('time', { datetime: iso, title: absolute(iso), text: relative(iso) });
  }

  function zoneToggle() {
    var toggle = document.getElementById('zone');
    toggle.textContent = 'Times: ' + (zone === 'UTC' ? 'UTC' : 'local');
    toggle.onclick = function () {
      zone = zone === 'UTC' ? 'local' : 'UTC';
      if (window.localStorage) { window.localStorage.setItem('delayqueue.zone', zone); }
      zoneToggle();
      route();
    };
  }

  function api(path, options) {
    options = options || {};
    var init = { method: options.method || 'GET', headers: { 'Accept': 'application/json' }, credentials: 'same-origin' };
    if (init.method !== 'GET') {
      init.headers['X-DelayQueue-Dashboard'] = '1';
      if (session.csrfHeader) { init.headers[session.csrfHeader] = session.csrfToken; }
      if (options.form) {
        init.headers['Content-Type'] = 'application/x-www-form-urlencoded';
        init.body = new URLSearchParams(options.form).toString();
      }
    }
    return fetch('api/' + path, init).then(function (response) {
      return response.text().then(function (text) {
        var body = null;
        try { body = text ? JSON.parse(text) : null; } catch (e) { body = { error: 'the server refused the request (' + (response.statusText || 'not JSON') + ')' }; }
        if (!response.ok) {
          var message = (body && body.error) || (body && body.message) || ('HTTP ' + response.status);
          throw new Error(response.status + ': ' + message);
        }
        return body;
      });
    });
  }

  function q(queue) { return encodeURIComponent(queue); }

  // asks, writes, then says in plain words what changed (done: a sentence from the result)
  function write(question, path, form, done) {
    if (!window.confirm(visible(question))) { return Promise.resolve(null); }
    return api(path, { method: 'POST', form: form }).then(function (result) {
      notice(done ? done(result || {}) : 'Done');
      route();
      return result;
    }, function (error) { notice(error.message, true); });
  }

  function button(label, onclick, danger) {
    var b = el('button', { type: 'button', text: label, onclick: onclick });
    if (danger) { b.className = 'danger'; }
    if (!session.canWrite) { b.disabled = true; b.title = session.whyNot || 'read-only'; }
    return b;
  }

  function num(value) { return el('td', { 'class': 'num', text: count(value) }); }

  function table(headings, rows) {
    return el('table', {}, [el('thead', {}, [el('tr', {}, headings.map(function (h) { return el('th', { text: h }); }))]),
      el('tbody', {}, rows)]);
  }

  // ---- all queues: what needs the operator first, then totals and one row per group
  var lags = {};
  // the lag of each queue over the last refreshes, to see it grow
  function lagTrend(queue, lag) {
    var seen = lags[queue] || [];
    if (!seen.length || seen[seen.length - 1] !== lag) { seen.push(lag); }
    lags[queue] = seen.slice(-4);
    return lags[queue];
  }

  function attention(queues) {
    var items = [];
    queues.forEach(function (s) {
      var lag = s.stats.groups.reduce(function (sum, g) { return sum + Math.max(0, g.lag); }, 0);
      var trend = lagTrend(s.queue, lag);
      function add(level, text, after) { items.push({ level: level, queue: s.queue, text: text, after: after }); }
      // a group whose listeners are all down, or ready messages no group reads yet
      s.stats.groups.forEach(function (g) {
        if (g.consumers === 0) { add('warn', 'group ' + g.group + ' has no consumer' + (g.lag > 0 ? ' (' + count(g.lag) + ' ready)' : '')); }
      });
      if (!s.stats.groups.length && s.stats.ready > 0) {
        add('warn', 'no consumer group reads it yet (' + count(s.stats.ready) + ' ready)');
      }
      if (trend.length >= 3 && trend.every(function (v, i) { return i === 0 || v > trend[i - 1]; })) {
        add('warn', 'lag growing: ' + trend.map(count).join(' \u2192 '));
      }
      // counted in the dead-letter streams when the overview is read, so a dead letter
      // shows at once (not after the history's next flush)
      if (s.deadLastFiveMinutes > 0) {
        add('warn', count(s.deadLastFiveMinutes) + (s.deadLastFiveMinutesAtLeast ? ' or more' : '') + ' dead letter'
          + (s.deadLastFiveMinutes === 1 && !s.deadLastFiveMinutesAtLeast ? '' : 's') + ' in the last 5 min, the newest ', [when(s.newestDead)]);
      }
      if (s.paused) { add('paused', 'paused on every instance'); }
      s.pausedGroups.forEach(function (g) { add('paused', 'group ' + g + ' paused'); });
      if (s.rateLimit) { add('info', 'rate-limited to ' + s.rateLimit); }
      s.groupRateLimits.forEach(function (g) { add('info', 'group ' + g + ' rate-limited'); });
      if (s.concurrencyLimit) { add('info', 'at most ' + s.concurrencyLimit + ' running at once'); }
      Object.keys(s.groupConcurrencyLimits).forEach(function (g) { add('info', 'group ' + g + ' at most ' + s.groupConcurrencyLimits[g] + ' at once'); });
    });
    return items;
  }

  // a sparkline of the hour, one value a minute, with its highest value on hover
  function sparkline(label, values, color, format) {
    var w = 120, h = 24;
    var svgNs = 'http://www.w3.org/2000/svg';
    var numbersOnly = values.map(function (v) { return v || 0; });
    var max = Math.max.apply(null, numbersOnly.concat([0]));
    var svg = document.createElementNS(svgNs, 'svg');
    svg.setAttribute('class', 'spark');
    svg.setAttribute('width', w);
    svg.setAttribute('height', h);
    svg.setAttribute('role', 'img');
    var text = label + (max > 0 ? ': highest ' + format(max) + ' in the last hour' : ': none in the last hour');
    svg.setAttribute('aria-label', text);
    var title = document.createElementNS(svgNs, 'title');
    title.textContent = text;
    svg.appendChild(title);
    if (max > 0 && numbersOnly.length > 1) {
      var line = document.createElementNS(svgNs, 'polyline');
      line.setAttribute('points', numbersOnly.map(function (v, i) {
        return (i * (w - 2) / (numbersOnly.length - 1) + 1).toFixed(1) + ',' + (h - 2 - v * (h - 4) / max).toFixed(1);
      }).join(' '));
      line.setAttribute('fill', 'none');
      line.setAttribute('stroke', color);
      svg.appendChild(line);
    }
    return svg;
  }

  // the outbox's rows not yet in Redis, and the age of the oldest: the relay's lag
  function outboxPanel(box) {
    return api('outbox').then(function (o) {
      if (!o.enabled) { return; }
      box.removeAttribute('hidden');
      var failing = o.relay !== 'relaying';
      var behind = o.oldestMillis !== undefined && o.oldestMillis >= 5000;
      box.appendChild(el('h2', { text: 'Outbox' }));
      box.appendChild(el('dl', { 'class': 'totals' }, [
        ['Table', o.table], ['Rows waiting', o.rows === undefined ? '\u2013' : count(o.rows)],
        ['Oldest (relay lag)', o.oldestMillis === undefined ? '\u2013' : duration(o.oldestMillis)],
        ['Relay', o.relay]].map(function (t) {
        return el('div', {}, [el('dt', { text: t[0] }), el('dd', { text: t[1] })]);
      })));
      if (o.error || failing || behind) {
        box.appendChild(el('p', { 'class': 'warn', role: 'status', text: o.error || (failing ? 'The relay is failing: ' + o.relay
          : 'The relay is ' + duration(o.oldestMillis) + ' behind the writers') }));
      }
    }, function (error) { box.removeAttribute('hidden'); box.appendChild(el('p', { 'class': 'warn', text: 'Outbox: ' + error.message })); });
  }

  function queuesPage(target) {
    return api('queues').then(function (queues) {
      target.textContent = '';
      target.appendChild(el('h2', { text: 'Overview' }));
      if (!queues.length) { target.appendChild(el('p', { text: 'No queue yet.' })); return; }
      var items = attention(queues);
      var box = el('section', { id: 'attention', 'aria-label': 'Needs attention' });
      if (!items.length) {
        box.appendChild(el('p', { 'class': 'ok', text: 'Nothing needs you: every queue has a consumer, none is paused or rate-limited, no dead letters in the last 5 min.' }));
      }
      else {
        box.appendChild(el('ul', {}, items.map(function (item) {
          return el('li', { 'class': item.level }, [el('a', { href: '#q/' + q(item.queue), text: item.queue }), ': ' + item.text].concat(item.after || []));
        })));
      }
      target.appendChild(box);
      var totals = { scheduled: 0, ready: 0, inFlight: 0, dead: 0, acked: 0 };
      queues.forEach(function (s) {
        totals.scheduled += s.stats.scheduled; totals.ready += Math.max(0, s.stats.ready);
        totals.inFlight += s.stats.inFlight; totals.dead += s.stats.dead; totals.acked += s.ackedPerMinute;
      });
      target.appendChild(el('dl', { id: 'totals', 'class': 'totals' }, [
        ['Queues', queues.length], ['Scheduled', totals.scheduled], ['Ready', totals.ready], ['In flight', totals.inFlight],
        ['Dead letters', totals.dead], ['Acked/min (5 min)', totals.acked]].map(function (t) {
        return el('div', {}, [el('dt', { text: t[0] }), el('dd', { text: count(t[1]) })]);
      })));
      var outboxBox = el('section', { id: 'outbox', 'aria-label': 'Transactional outbox', hidden: 'hidden' });
      target.appendChild(outboxBox);
      outboxPanel(outboxBox);
      target.appendChild(el('h2', { text: 'Queues' }));
      var rows = [];
      queues.forEach(function (summary) {
        var stats = summary.stats;
        // a queue no group reads yet: its ready messages wait for the first one
        var groups = stats.groups.length ? stats.groups : [{ group: '–', consumers: 0, pending: 0, lag: stats.ready, retryScheduled: 0 }];
        groups.forEach(function (group, i) {
          var state = summary.paused ? el('span', { 'class': 'paused', text: 'paused' })
            : (summary.pausedGroups.indexOf(group.group) >= 0 ? el('span', { 'class': 'paused', text: 'group paused' }) : el('span', { 'class': 'ok', text: 'running' }));
          var consumers = group.consumers > 0 ? el('span', { text: String(group.consumers) }) : el('span', { 'class': 'warn', text: 'no consumer' });
          rows.push(el('tr', { 'data-queue': summary.queue, 'data-group': group.group }, [
            el('td', {}, i === 0 ? [el('a', { href: '#q/' + q(summary.queue), text: summary.queue })] : []),
            el('td', { text: group.group }),
            num(i === 0 ? stats.scheduled : ''), num(group.lag), num(group.pending), num(group.retryScheduled), num(i === 0 ? stats.dead : ''),
            el('td', {}, [consumers]), el('td', {}, [state]),
            el('td', { text: summary.rateLimit || '' }),
            el('td', { 'class': 'slots', text: slotsText(summary, group.group) }),
            el('td', { 'class': 'num', text: summary.latenessP50Ms === null || summary.latenessP50Ms === undefined ? '\u2013' : lateness(summary.latenessP50Ms) }),
            el('td', { 'class': 'num', text: summary.latenessP99Ms === null || summary.latenessP99Ms === undefined ? '\u2013' : lateness(summary.latenessP99Ms) }),
            num(summary.ackedPerMinute),
            el('td', {}, i === 0 ? [sparkline('Acked per minute of ' + summary.queue, summary.ackedByMinute, '#276b2f', count),
              sparkline('Lateness p99 of ' + summary.queue, summary.latenessP99ByMinute, '#1f5fa8', lateness)] : [])
          ]));
        });
      });
      target.appendChild(table(['Queue', 'Group', 'Scheduled', 'Ready (lag)', 'In flight', 'Retrying', 'Dead', 'Consumers',
        'State', 'Rate limit', 'Running / limit', 'Lateness p50', 'p99', 'Acked/min (5 min)', 'Last hour: acked, lateness p99'], rows));
      target.appendChild(el('p', { text: 'Lateness and throughput: the last hour, all instances.' }));
    });
  }

  // the slots a group under a concurrency limit has taken, of its limit; a per-key limit
  // as its text
  function slotsText(summary, group) {
    var slots = summary.concurrencySlots[group];
    if (slots) { return slots.taken + ' / ' + slots.limit; }
    var limit = summary.groupConcurrencyLimits[group] || summary.concurrencyLimit;
    return limit || '';
  }

  // ---- one queue
  var tab = 'scheduled';
  var cursors = [];

  function queuePage(queue, target) {
    return api('queues/' + q(queue)).then(function (detail) {
      target.textContent = '';
      target.appendChild(el('h2', {}, ['Queue ', el('span', { id: 'queue-name', text: queue })]));
      var stats = detail.stats;
      var controls = el('div', { 'class': 'bar' }, [
        el('span', { id: 'queue-state', 'class': detail.paused ? 'paused' : 'ok', text: detail.paused ? 'paused' : 'running' }),
        detail.paused ? button('Resume', function () {
          write('Resume queue ' + queue + '?', 'queues/' + q(queue) + '/resume', null, function () { return 'Resumed ' + queue + ' on every instance'; });
        }) : button('Pause', function () {
          write('Pause queue ' + queue + '?', 'queues/' + q(queue) + '/pause', null, function () { return 'Paused ' + queue + ' on every instance: no handler starts until it is resumed'; });
        }),
        el('span', { text: 'Rate limit: ' + (detail.rateLimit || 'none') }),
        button('Change rate limit', function () {
          var value = window.prompt('New rate limit (permits/period[/burst][/key], e.g. 500/1s); empty to remove', detail.rateLimit || '');
          if (value === null) { return; }
          api('queues/' + q(queue) + '/rate-limit', { method: 'POST', form: { rateLimit: value } })
            .then(function () { notice(value.trim() ? 'Rate limit of ' + queue + ' set to ' + value.trim() : 'Rate limit of ' + queue + ' removed'); route(); },
              function (e) { notice(e.message, true); });
        }),
        el('span', { id: 'concurrency-limit', text: 'Concurrency limit: ' + (detail.concurrencyLimit || 'none') }),
        button('Change concurrency limit', function () {
          var value = window.prompt('New concurrency limit of each group (max[/key], e.g. 10, or 2/key); empty to remove', detail.concurrencyLimit || '');
          if (value === null) { return; }
          api('queues/' + q(queue) + '/concurrency-limit', { method: 'POST', form: { concurrencyLimit: value } })
            .then(function () { notice(value.trim() ? 'Concurrency limit of ' + queue + ' set to ' + value.trim() : 'Concurrency limit of ' + queue + ' removed'); route(); },
              function (e) { notice(e.message, true); });
        }),
        el('span', { text: 'Size limit: ' + (detail.sizeLimit === null ? 'none' : count(detail.sizeLimit)) }),
        el('span', { text: 'Partitions: ' + detail.partitions.partitions })
      ]);
      target.appendChild(controls);
      var groupRows = stats.groups.length ? stats.groups
        : [{ group: '(no consumer group yet)', consumers: 0, pending: 0, lag: stats.ready, retryScheduled: 0 }];
      target.appendChild(table(['Group', 'Consumers', 'Ready (lag)', 'In flight', 'Retrying', 'Paused', 'Running / limit', 'Partition owners'],
        groupRows.map(function (group) {
          var owners = detail.partitionOwners[group.group] || {};
          var ownerText = Object.keys(owners).map(function (p) { return p + '→' + owners[p]; }).join(', ');
          return el('tr', {}, [el('td', { text: group.group }),
            group.consumers > 0 ? num(group.consumers) : el('td', { 'class': 'warn', text: 'no consumer' }),
            num(group.lag), num(group.pending), num(group.retryScheduled),
            el('td', { text: detail.pausedGroups.indexOf(group.group) >= 0 ? 'yes' : '' }),
            el('td', { 'class': 'slots', text: slotsText(detail, group.group) }),
            el('td', { text: ownerText || 'shared' })]);
        })));
      target.appendChild(el('p', { id: 'queue-counts', text: 'Scheduled: ' + count(stats.scheduled) + ' · ready: ' + count(stats.ready) + ' · dead letters: ' + count(stats.dead) }));
      var find = el('input', { id: 'find-id', placeholder: 'message id', size: '30', 'aria-label': 'Message id to find' });
      target.appendChild(el('div', { 'class': 'bar' }, [find, el('button', { type: 'button', id: 'find', text: 'Find message', onclick: function () {
        var id = find.value.trim();
        if (!id) { return; }
        api('queues/' + q(queue) + '/message?id=' + encodeURIComponent(id)).then(function (message) {
          notice('');
          var box = document.getElementById('found');
          box.textContent = '';
          box.appendChild(scheduledTable(queue, [message], false));
          markScrollables(box);
        }, function (e) {
          // not scheduled: its page says where it went
          if (e.message.indexOf('404') === 0 && e.message.indexOf('No scheduled message') >= 0) {
            window.location.hash = '#q/' + q(queue) + '/m/' + encodeURIComponent(id);
          }
          else { notice(e.message, true); }
        });
      } })]));
      target.appendChild(el('div', { id: 'found' }));
      var tabs = el('div', { 'class': 'bar tabs' });
      [['scheduled', 'Scheduled'], ['in-flight', 'In flight'], ['dead-letters', 'Dead letters'], ['schedules', 'Recurring'], ['history', 'History']].forEach(function (t) {
        var b = el('button', { type: 'button', id: 'tab-' + t[0], text: t[1], 'aria-pressed': String(tab === t[0]), onclick: function () { tab = t[0]; cursors = []; jumped = null; selected = {}; route(); } });
        if (tab === t[0]) { b.className = 'active'; }
        tabs.appendChild(b);
      });
      target.appendChild(tabs);
      var body = el('div', { id: 'tab-body' });
      target.appendChild(body);
      return ({ 'scheduled': scheduledTab, 'in-flight': inFlightTab, 'dead-letters': deadTab, 'schedules': schedulesTab, 'history': historyTab })[tab](queue, body, detail);
    });
  }

  // ---- paging: cursors of the pages before this one, the page size, and where the first
  // page started (a jump to a time: how many are due before it, exact or estimated)
  var pageSize = 50;
  var jumped = null;

  function pageSizeSelect() {
    var select = el('select', { id: 'page-size', 'aria-label': 'Page size' }, [20, 50, 100, 200].map(function (n) {
      var option = el('option', { value: String(n), text: n + ' a page' });
      if (n === pageSize) { option.selected = true; }
      return option;
    }));
    select.addEventListener('change', function () { pageSize = Number(select.value); cursors = []; jumped = null; selected = {}; route(); });
    return select;
  }

  // Previous, Next, the position ("1–50 of 1,000,000") and the page size
  function pager(body, page, total, next) {
    var offset = (jumped ? jumped.before : 0) + cursors.length * pageSize;
    // where the far tier still holds entries of cancelled messages, the count before the
    // time is within a margin: '≈', and the margin
    var approximate = jumped && !jumped.exact ? '\u2248 ' : '';
    var margin = jumped && !jumped.exact ? ' (\u00b1 ' + count(jumped.margin) + ')' : '';
    var position = page.length ? approximate + count(offset + 1) + '\u2013' + count(offset + page.length) + ' of ' + count(total) + margin
      : 'none here (' + count(total) + ' in all)';
    var previous = el('button', { type: 'button', id: 'page-previous', text: '\u2190 Previous', onclick: function () { cursors.pop(); selected = {}; route(); } });
    previous.disabled = cursors.length === 0;
    var following = el('button', { type: 'button', id: 'page-next', text: 'Next \u2192', onclick: function () { cursors.push(next); selected = {}; route(); } });
    following.disabled = page.length < pageSize;
    var first = el('button', { type: 'button', text: 'First', onclick: function () { cursors = []; jumped = null; selected = {}; route(); } });
    first.disabled = cursors.length === 0 && !jumped;
    body.appendChild(el('div', { 'class': 'bar pager' }, [first, previous, el('span', { id: 'page-position', text: position }), following, pageSizeSelect()]));
  }

  // ---- selections: rows checked on this page, acted on together
  var selected = {};

  function selectBox(id, label) {
    var box = el('input', { type: 'checkbox', 'class': 'select', 'aria-label': label, 'data-select': id });
    box.checked = !!selected[id];
    box.addEventListener('change', function () {
      if (box.checked) { selected[id] = true; } else { delete selected[id]; }
      updateBulk();
    });
    return box;
  }

  function selectAll(ids) {
    var box = el('input', { type: 'checkbox', id: 'select-all', 'aria-label': 'Select every row of this page' });
    box.checked = ids.length > 0 && ids.every(function (id) { return selected[id]; });
    box.addEventListener('change', function () {
      ids.forEach(function (id) { if (box.checked) { selected[id] = true; } else { delete selected[id]; } });
      main.querySelectorAll('input[data-select]').forEach(function (b) { b.checked = box.checked; });
      updateBulk();
    });
    return box;
  }

  function chosen() { return Object.keys(selected); }

  function updateBulk() {
    var n = chosen().length;
    var label = document.getElementById('bulk-count');
    if (label) { label.textContent = n ? count(n) + ' selected' : 'Select rows to act on several at once'; }
    main.querySelectorAll('.bulk button').forEach(function (b) { b.disabled = !session.canWrite || n === 0; });
  }

  // a bar of actions on the selection: each asks once, saying how many, then says what it did
  function bulkBar(actions) {
    var bar = el('div', { 'class': 'bar bulk', role: 'group', 'aria-label': 'Act on the selected rows' }, [el('span', { id: 'bulk-count' })]);
    actions.forEach(function (a) {
      bar.appendChild(button(a.label, function () {
        var ids = chosen();
        write(a.question(ids.length), a.path, formOf(ids), function (r) {
          selected = {};
          var text = a.done + ' ' + count(r.done) + ' of ' + count(r.selected);
          if (r.notFound && r.notFound.length) { text += '; ' + count(r.notFound.length) + ' no longer there'; }
          var refused = Object.keys(r.refused || {});
          if (refused.length) { text += '; ' + count(refused.length) + ' refused: ' + r.refused[refused[0]]; }
          return text;
        });
      }, a.danger));
    });
    return bar;
  }

  function formOf(ids) {
    var params = new URLSearchParams();
    ids.forEach(function (id) { params.append('ids', id); });
    return params;
  }

  function headersText(headers) {
    return Object.keys(headers || {}).map(function (k) { return k + '=' + headers[k]; }).join('\n');
  }

  function scheduledTable(queue, messages, selectable) {
    var headings = ['Id', 'Due', 'Partition', 'Key', 'Priority', 'Headers', 'Payload', 'Actions'];
    var head = selectable ? [selectAll(messages.map(function (m) { return m.id; }))] : [];
    return el('table', {}, [el('thead', {}, [el('tr', {}, (selectable ? [el('th', {}, head)] : []).concat(headings.map(function (h) { return el('th', { text: h }); })))]),
      el('tbody', {}, messages.map(function (m) {
        var path = 'queues/' + q(queue) + '/message';
        var cells = [el('td', { 'class': 'message-id' }, [el('a', { href: '#q/' + q(queue) + '/m/' + encodeURIComponent(m.id), text: m.id })]),
          el('td', { 'class': 'due' }, [when(m.dueTime)]), num(m.partition),
          el('td', { text: m.key || '' }), el('td', { 'class': 'num', text: m.priority ? String(m.priority) : '' }),
          el('td', {}, [el('pre', { 'data-label': 'Headers of ' + m.id, text: headersText(m.headers) })]),
          el('td', {}, [el('pre', { 'class': 'payload', 'data-label': 'Payload of ' + m.id, text: m.payload })]),
          el('td', { 'class': 'actions' }, [
            button('Due now', function () { write('Make ' + m.id + ' due now?', path + '/due-now', { id: m.id }, function () { return 'Made ' + m.id + ' due now'; }); }),
            button('Reschedule', function () {
              var delay = window.prompt('Deliver in (e.g. 30s, 5m, 2h)', '5m');
              if (delay !== null) { write('Reschedule ' + m.id + ' in ' + delay + '?', path + '/reschedule', { id: m.id, delay: delay }, function () { return 'Rescheduled ' + m.id + ' to be delivered in ' + delay; }); }
            }),
            button('Cancel', function () { write('Cancel ' + m.id + '?', path + '/cancel', { id: m.id }, function () { return 'Cancelled ' + m.id; }); }, true)])];
        return el('tr', { 'data-id': m.id }, (selectable ? [el('td', {}, [selectBox(m.id, 'Select ' + m.id)])] : []).concat(cells));
      }))]);
  }

  // "jump to due time >= T": a cursor '<epoch ms>:' starts the page there
  function jumpBar(queue) {
    var input = el('input', { type: 'datetime-local', id: 'jump-time', step: '1', 'aria-label': 'Jump to the first messages due at or after this time' });
    return el('div', { 'class': 'bar' }, [el('label', { 'for': 'jump-time', text: 'Due at or after' }), input,
      el('button', { type: 'button', id: 'jump', text: 'Jump', onclick: function () {
        if (!input.value) { notice('Pick a time to jump to', true); return; }
        // the picker's time is local, or UTC when times are shown in UTC
        var at = zone === 'UTC' ? Date.parse(input.value + 'Z') : new Date(input.value).getTime();
        if (isNaN(at)) { notice('"' + input.value + '" is not a time', true); return; }
        api('queues/' + q(queue) + '/scheduled/position?at=' + at).then(function (p) {
          jumped = { cursor: p.cursor, before: p.before, exact: p.exact, margin: p.margin };
          cursors = []; selected = {};
          notice('Showing the messages due from ' + absolute(new Date(at).toISOString()) + ' on: ' + (p.exact ? '' : 'about ') + count(p.before) + (p.exact ? '' : ' (\u00b1 ' + count(p.margin) + ')') + ' are due before');
          route();
        }, function (e) { notice(e.message, true); });
      } })]);
  }

  function scheduledTab(queue, body, detail) {
    var after = cursors.length ? cursors[cursors.length - 1] : (jumped ? jumped.cursor : null);
    return api('queues/' + q(queue) + '/scheduled?count=' + pageSize + (after ? '&after=' + encodeURIComponent(after) : '')).then(function (page) {
      body.appendChild(jumpBar(queue));
      var base = 'queues/' + q(queue) + '/messages/selected';
      body.appendChild(bulkBar([
        { label: 'Make selected due now', path: base + '/due-now', done: 'Made due now', question: function (n) { return 'Make ' + n + ' selected message' + (n === 1 ? '' : 's') + ' due now?'; } },
        { label: 'Cancel selected', path: base + '/cancel', done: 'Cancelled', danger: true, question: function (n) { return 'Cancel ' + n + ' selected message' + (n === 1 ? '' : 's') + '? This cannot be undone.'; } }]));
      body.appendChild(scheduledTable(queue, page, true));
      pager(body, page, detail.stats.scheduled, page.length ? page[page.length - 1].cursor : null);
      updateBulk();
    });
  }

  // the consumer's instance: its name without the random suffix (host and pid by default)
  function instance(consumer) { return String(consumer || '').replace(/-[0-9a-f]{8}$/, ''); }

  var order = 'idle';
  function inFlightTab(queue, body) {
    return api('queues/' + q(queue) + '/in-flight?count=100&order=' + order).then(function (page) {
      var sorts = [['idle', 'time since its lease was renewed'], ['deliveries', 'deliveries']];
      body.appendChild(el('div', { 'class': 'bar', role: 'group', 'aria-label': 'Sort' }, [el('span', { text: 'Sorted by' })].concat(sorts.map(function (sort) {
        var b = el('button', { type: 'button', id: 'sort-' + sort[0], text: (order === sort[0] ? '\u25bc ' : '') + sort[1], 'aria-pressed': String(order === sort[0]),
          onclick: function () { order = sort[0]; route(); } });
        if (order === sort[0]) { b.className = 'active'; }
        return b;
      }))));
      if (!page.length) { body.appendChild(el('p', { text: 'Nothing in flight: no handler holds a message of this queue.' })); return; }
      body.appendChild(table(['Message id', 'Group', 'Partition', 'Instance', 'Consumer', 'Running for (at most)', 'Since the lease was renewed', 'Deliveries', 'Retry', 'Entry'], page.map(function (m) {
        return el('tr', {}, [el('td', { text: m.messageId || '(deleted)' }), el('td', { text: m.group }), num(m.partition),
          el('td', { 'class': 'instance', text: instance(m.consumer) }), el('td', { text: m.consumer }),
          el('td', { 'class': 'num running', title: 'since it became due and entered the stream', text: duration(m.readyMs) }),
          el('td', { 'class': 'num', text: duration(m.idleMs) }), num(m.deliveries), el('td', { text: m.retry ? 'yes' : '' }), el('td', { text: m.entryId })]);
      })));
    });
  }

  // dead letters by error: the reason's common start and how many, each replayed or deleted as one
  function errorsTable(queue, base) {
    return api(base + '/errors').then(function (result) {
      var box = el('section', { id: 'errors', 'aria-label': 'Dead letters by error' }, [el('h3', { text: 'By error (the newest ' + count(result.readPerPartition) + ' of each partition)' })]);
      if (!result.errors.length) { box.appendChild(el('p', { text: 'No dead letters.' })); return box; }
      box.appendChild(table(['Error', 'Reason starts with', 'Count', 'Newest', 'Actions'], result.errors.map(function (e) {
        var form = { errorClass: e.errorClass, reasonPrefix: e.reasonPrefix };
        var name = e.errorClass.replace(/^.*\./, '') + (e.reasonPrefix ? ' \u201c' + e.reasonPrefix + '\u2026\u201d' : '');
        function said(verb) {
          return function (r) {
            var n = r.replayed !== undefined ? r.replayed : r.deleted;
            return verb + ' ' + count(n) + ' dead letter' + (n === 1 ? '' : 's') + ' of ' + name + (n >= r.max ? ' (at most ' + count(r.max) + ' at a time: again for more)' : '');
          };
        }
        return el('tr', { 'data-error': e.errorClass + '\n' + e.reasonPrefix }, [el('td', { text: e.errorClass }), el('td', { 'class': 'reason', text: e.reasonPrefix }),
          num(e.count), el('td', {}, [when(e.newest)]),
          el('td', { 'class': 'actions' }, [
            button('Replay these', function () { write('Replay the dead letters of ' + name + ' (' + count(e.count) + ' counted)?', base + '/by-error/replay', form, said('Replayed')); }),
            button('Delete these', function () { write('Delete the dead letters of ' + name + ' (' + count(e.count) + ' counted)? This cannot be undone.', base + '/by-error/delete', form, said('Deleted')); }, true)])]);
      })));
      return box;
    });
  }

  function deadTab(queue, body, detail) {
    var after = cursors.length ? cursors[cursors.length - 1] : null;
    var base = 'queues/' + q(queue) + '/dead-letters';
    return Promise.all([errorsTable(queue, base), api(base + '?count=' + pageSize + (after ? '&after=' + encodeURIComponent(after) : ''))]).then(function (both) {
      var page = both[1];
      body.appendChild(both[0]);
      body.appendChild(el('h3', { text: 'Dead letters, oldest first' }));
      body.appendChild(el('div', { 'class': 'bar' }, [
        button('Replay all', function () { write('Replay every dead letter of ' + queue + '?', base + '/replay-all', null, function (r) { return 'Replayed ' + count(r.replayed) + ' dead letter' + (r.replayed === 1 ? '' : 's') + ' of ' + queue; }); }),
        button('Purge all', function () { write('Delete every dead letter of ' + queue + '? This cannot be undone.', base + '/purge', null, function (r) { return 'Deleted ' + count(r.purged) + ' dead letter' + (r.purged === 1 ? '' : 's') + ' of ' + queue; }); }, true)]));
      body.appendChild(bulkBar([
        { label: 'Replay selected', path: base + '/selected/replay', done: 'Replayed', question: function (n) { return 'Replay ' + n + ' selected dead letter' + (n === 1 ? '' : 's') + '?'; } },
        { label: 'Delete selected', path: base + '/selected/delete', done: 'Deleted', danger: true, question: function (n) { return 'Delete ' + n + ' selected dead letter' + (n === 1 ? '' : 's') + '? This cannot be undone.'; } }]));
      var headings = ['Message id', 'Group', 'Attempts', 'Reason', 'Dead since', 'Headers', 'Payload', 'Actions'];
      body.appendChild(el('table', {}, [el('thead', {}, [el('tr', {}, [el('th', {}, [selectAll(page.map(function (d) { return d.entryId; }))])].concat(headings.map(function (h) { return el('th', { text: h }); })))]),
        el('tbody', {}, page.map(function (d) {
          // the reason in the row; the class and stack trace behind the disclosure
          var details = el('div', {}, [el('div', { 'class': 'reason', text: d.errorMessage || '' }),
            el('details', {}, [el('summary', { text: d.errorClass }), el('pre', { 'class': 'stack', 'data-label': 'Stack trace of dead letter ' + d.messageId, text: d.stackTrace || '' })])]);
          return el('tr', { 'data-entry': d.entryId, 'data-id': d.messageId }, [el('td', {}, [selectBox(d.entryId, 'Select dead letter ' + d.messageId)]),
            el('td', { 'class': 'message-id', text: d.messageId }), el('td', { text: d.group }),
            // attempts used, and the runs a snooze took (which use none)
            el('td', { 'class': 'num attempts', text: count(d.attempts) + (d.snoozes ? ' (+' + count(d.snoozes) + ' snoozed)' : '') }), el('td', {}, [details]), el('td', {}, [when(d.deadTime)]),
            el('td', {}, [el('pre', { 'data-label': 'Headers of dead letter ' + d.messageId, text: headersText(d.headers) })]),
            el('td', {}, [el('pre', { 'class': 'payload', 'data-label': 'Payload of dead letter ' + d.messageId, text: d.payload })]),
            el('td', { 'class': 'actions' }, [button('Replay', function () { write('Replay ' + d.messageId + '?', base + '/' + encodeURIComponent(d.entryId) + '/replay', null, function () { return 'Replayed ' + d.messageId; }); }),
              button('Delete', function () { write('Delete dead letter ' + d.messageId + '?', base + '/' + encodeURIComponent(d.entryId) + '/delete', null, function () { return 'Deleted dead letter ' + d.messageId; }); }, true)])]);
        }))]));
      pager(body, page, detail.stats.dead, page.length ? page[page.length - 1].entryId : null);
      updateBulk();
    });
  }

  var span = 'hour';
  function schedulesTab(queue, body) {
    var base = 'queues/' + q(queue) + '/schedules';
    return api(base).then(function (schedules) {
      if (schedules.length === 0) { body.appendChild(el('p', { text: 'No recurring schedule sends to this queue.' })); return; }
      body.appendChild(table(['Name', 'Ticks', 'Next tick', 'Last tick', 'Fired', 'Skipped', 'Missed ticks', 'Headers', 'Payload', ''], schedules.map(function (s) {
        var path = base + '/' + encodeURIComponent(s.name);
        return el('tr', {}, [el('td', { text: s.name }), el('td', { text: s.ticks }),
          el('td', {}, [s.paused ? el('span', { text: 'paused' }) : (s.nextTick ? when(s.nextTick) : el('span', { text: 'being planned' }))]),
          el('td', {}, [when(s.lastTick)]),
          num(s.fired), num(s.skipped), el('td', { text: s.missedTicks }),
          el('td', {}, [el('pre', { 'data-label': 'Headers of schedule ' + s.name, text: headersText(s.headers) })]),
          el('td', {}, [el('pre', { 'class': 'payload', 'data-label': 'Payload of schedule ' + s.name, text: s.payload })]),
          el('td', { 'class': 'actions' }, [
            s.paused ? button('Resume', function () { write('Resume schedule ' + s.name + '? Its next tick is the first after now.', path + '/resume', null, function () { return 'Resumed schedule ' + s.name; }); })
              : button('Pause', function () { write('Pause schedule ' + s.name + '? No tick fires until it is resumed.', path + '/pause', null, function () { return 'Paused schedule ' + s.name; }); }),
            button('Trigger now', function () { write('Send one message of schedule ' + s.name + ' now?', path + '/trigger', null, function (r) { return 'Triggered schedule ' + s.name + ': sent message ' + r.result; }); }),
            button('Delete', function () { write('Delete schedule ' + s.name + '? It never fires again.', path + '/delete', null, function () { return 'Deleted schedule ' + s.name; }); }, true)])]);
      })));
    });
  }

  // the overflow bucket of the lateness histogram: more than 10 s, not a measurement
  var LATENESS_OVERFLOW_MS = 10001;
  function lateness(ms) { return ms >= LATENESS_OVERFLOW_MS ? '> 10 s' : duration(ms); }

  function timeLabel(iso) {
    var date = new Date(iso);
    var withDay = span !== 'hour';
    if (zone === 'UTC') { return (withDay ? iso.substring(5, 10) + ' ' : '') + iso.substring(11, 16) + ' UTC'; }
    var options = withDay ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' } : { hour: '2-digit', minute: '2-digit' };
    return date.toLocaleString([], options);
  }

  // a line chart with its value axis (0, the middle and the highest value, formatted), its
  // time axis (first, middle and last interval) and, on hover, each interval's value and
  // time; an idle span says so instead of drawing a scale
  function chart(title, points, field, color, format) {
    var w = 320, h = 140, left = 48, right = 8, top = 10, bottom = 22;
    var svgNs = 'http://www.w3.org/2000/svg';
    function svgEl(tag, attrs, text) {
      var node = document.createElementNS(svgNs, tag);
      Object.keys(attrs).forEach(function (name) { node.setAttribute(name, attrs[name]); });
      if (text !== undefined) { node.textContent = visible(text); }
      return node;
    }
    var values = points.map(function (p) { return p[field] || 0; });
    var max = Math.max.apply(null, values.concat([0]));
    var svg = svgEl('svg', { 'class': 'chart', width: w, height: h, role: 'img', 'aria-label': title + (max > 0 ? ', highest ' + format(max) : ', none in this span') });
    svg.appendChild(svgEl('line', { 'class': 'axis', x1: left, y1: top, x2: left, y2: h - bottom }));
    svg.appendChild(svgEl('line', { 'class': 'axis', x1: left, y1: h - bottom, x2: w - right, y2: h - bottom }));
    var step = (w - left - right) / Math.max(1, values.length - 1);
    if (max > 0) {
      var d = values.map(function (v, i) {
        var x = left + i * step;
        var y = h - bottom - v * (h - top - bottom) / max;
        return (i ? 'L' : 'M') + x.toFixed(1) + ' ' + y.toFixed(1);
      }).join(' ');
      svg.appendChild(svgEl('path', { d: d, fill: 'none', stroke: color, 'stroke-width': '1.5' }));
      svg.appendChild(svgEl('text', { 'class': 'y-max', x: left - 4, y: top + 8, 'font-size': '10', 'text-anchor': 'end' }, format(max)));
      svg.appendChild(svgEl('text', { 'class': 'y-mid', x: left - 4, y: (top + h - bottom) / 2 + 4, 'font-size': '10', 'text-anchor': 'end' }, format(max / 2)));
      // one hover band per interval: its value and time as the tooltip
      points.forEach(function (p, i) {
        var band = svgEl('rect', { 'class': 'hover', x: (left + i * step - step / 2).toFixed(1), y: top, width: Math.max(1, step).toFixed(1), height: h - top - bottom });
        band.appendChild(svgEl('title', {}, timeLabel(p.start) + ': ' + format(values[i])));
        svg.appendChild(band);
      });
    }
    else {
      svg.appendChild(svgEl('text', { 'class': 'idle', x: (left + w - right) / 2, y: h / 2, 'font-size': '11', 'text-anchor': 'middle' }, 'none in this span'));
    }
    svg.appendChild(svgEl('text', { 'class': 'y-min', x: left - 4, y: h - bottom, 'font-size': '10', 'text-anchor': 'end' }, '0'));
    if (points.length) {
      svg.appendChild(svgEl('text', { 'class': 'x-start', x: left, y: h - 6, 'font-size': '10' }, timeLabel(points[0].start)));
      svg.appendChild(svgEl('text', { 'class': 'x-mid', x: left + (w - left - right) / 2, y: h - 6, 'font-size': '10', 'text-anchor': 'middle' }, timeLabel(points[Math.floor((points.length - 1) / 2)].start)));
      svg.appendChild(svgEl('text', { 'class': 'x-end', x: w - right, y: h - 6, 'font-size': '10', 'text-anchor': 'end' }, timeLabel(points[points.length - 1].start)));
    }
    return el('figure', {}, [el('figcaption', { text: title }), svg]);
  }

  function historyTab(queue, body) {
    return api('queues/' + q(queue) + '/history?span=' + span).then(function (history) {
      body.appendChild(el('div', { 'class': 'bar' }, ['hour', 'day', 'week'].map(function (s) {
        var b = el('button', { type: 'button', text: 'Last ' + s, onclick: function () { span = s; route(); } });
        if (s === span) { b.className = 'active'; }
        return b;
      })));
      var per = history.intervalSeconds >= 3600 ? 'hour' : history.intervalSeconds >= 900 ? '15 min' : 'minute';
      var charts = [
        chart('Acked per ' + per, history.points, 'acked', '#276b2f', count),
        chart('Lateness p99', history.points, 'latenessP99Ms', '#1f5fa8', lateness),
        chart('Retries per ' + per, history.points, 'retried', '#9a6400', count),
        chart('Dead letters per ' + per, history.points, 'dead', '#a33', count)];
      // messages an interceptor filtered out: shown when there are any
      if (history.points.some(function (p) { return p.filtered > 0; })) {
        charts.push(chart('Filtered per ' + per, history.points, 'filtered', '#666', count));
      }
      body.appendChild(el('div', { 'class': 'charts' }, charts));
      body.appendChild(el('p', { text: 'All instances; each adds its counts about every 10 s.' }));
    });
  }

  // ---- one message
  function traceId(headers) {
    var parent = headers && headers.traceparent;
    var match = parent ? /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(parent) : null;
    return match ? match[1] : null;
  }

  // a JSON payload pretty-printed; anything else as the text it is
  function pretty(payload) {
    try {
      var parsed = JSON.parse(payload);
      return parsed !== null && typeof parsed === 'object' ? JSON.stringify(parsed, null, 2) : payload;
    } catch (e) { return payload; }
  }

  // what Redis still shows of a message that is not scheduled, per group: ready, in
  // flight, retrying, handled (until its stream entry is trimmed) or dead, with when; or
  // nothing, when it was cancelled, never sent, or handled and trimmed (no record is kept)
  function traceItem(queue, t) {
    var group = t.group ? 'group ' + t.group : '';
    var failure = t.errorClass ? ' (' + t.errorClass.replace(/^.*\./, '') + (t.errorMessage ? ': ' + t.errorMessage : '') + ')' : '';
    switch (t.state) {
      case 'IN_FLIGHT':
        return ['In flight in ' + group + ': held by ' + instance(t.consumer) + ', delivery ' + t.attempt + '; due since ', when(t.at)];
      case 'READY':
        return t.group ? ['Ready for ' + group + ', not read yet: due since ', when(t.at)]
          : ['Due since ', when(t.at), ', waiting for its key\u2019s turn (fair share)'];
      case 'RETRYING':
        return ['Retrying in ' + group + ': attempt ' + t.attempt + ' due ', when(t.at), failure || ' (a replayed dead letter, or a retry)'];
      case 'HANDLED':
        return ['Handled by ' + group + ': delivered and acknowledged; it became due ', when(t.at)];
      case 'DEAD':
        return ['Dead-lettered in ' + group + ' ', when(t.at), ', after ' + t.attempt + ' attempt' + (t.attempt === 1 ? '' : 's') + failure + ' ',
          el('a', { href: '#q/' + q(queue), 'class': 'dead-link', text: 'see Dead letters', onclick: function () { nextTab = 'dead-letters'; } })];
      default:
        return [t.state + ' in ' + group];
    }
  }

  function whereabouts(queue, id, target) {
    return api('queues/' + q(queue) + '/message/trace?id=' + encodeURIComponent(id)).then(function (traces) {
      target.textContent = '';
      target.appendChild(el('h2', {}, ['Message ', el('span', { id: 'detail-id', text: id })]));
      target.appendChild(el('p', {}, [el('a', { href: '#q/' + q(queue), text: '\u2190 queue ' + queue })]));
      if (!traces.length) {
        target.appendChild(el('p', { id: 'detail-state', text: 'Not scheduled, and Redis shows nothing else of it: not ready, in flight or retrying, '
          + 'not among the newest dead letters nor the streams\u2019 recent entries. It was cancelled, never sent, or handled '
          + 'more than about 30 s ago: the engine keeps no record of those.' }));
        return;
      }
      target.appendChild(el('div', { id: 'detail-state' }, [el('p', { text: 'Not scheduled. Where it is now:' }),
        el('ul', {}, traces.map(function (t) { return el('li', { 'class': 'trace', 'data-state': t.state, 'data-group': t.group || '' }, traceItem(queue, t)); }))]));
    });
  }

  function messagePage(queue, id, target) {
    var path = 'queues/' + q(queue) + '/message';
    return api(path + '?id=' + encodeURIComponent(id)).then(function (m) {
      target.textContent = '';
      target.appendChild(el('h2', {}, ['Message ', el('span', { id: 'detail-id', text: m.id })]));
      target.appendChild(el('p', {}, [el('a', { href: '#q/' + q(queue), text: '\u2190 queue ' + queue })]));
      target.appendChild(el('p', { id: 'detail-state', text: 'Scheduled: due ' + relative(m.dueTime) + ', not delivered yet (attempt 1 comes then)' }));
      var trace = traceId(m.headers);
      var traceCell = el('dd', { id: 'detail-trace' });
      if (trace && session.traceLink) {
        traceCell.appendChild(el('a', { href: session.traceLink.split('{traceId}').join(trace), target: '_blank', rel: 'noopener noreferrer', text: trace }));
      }
      else {
        traceCell.textContent = trace || '\u2013';
      }
      var due = el('dd', {}, [when(m.dueTime), el('span', { text: ' (' + absolute(m.dueTime) + ')' })]);
      var expires = m.expiresAt ? el('dd', { id: 'detail-expires' }, [when(m.expiresAt), el('span', { text: ' (' + absolute(m.expiresAt) + ')' })])
        : el('dd', { id: 'detail-expires', text: 'never' });
      target.appendChild(el('dl', { 'class': 'detail' }, [
        el('dt', { text: 'Queue' }), el('dd', { text: queue }),
        el('dt', { text: 'Due' }), due,
        el('dt', { text: 'Expires' }), expires,
        el('dt', { text: 'Attempts' }), el('dd', { id: 'detail-attempts', text: '0 so far; at most ' + (m.maxAttempts ? String(m.maxAttempts) : 'the listener\u2019s limit') }),
        el('dt', { text: 'Partition' }), el('dd', { text: String(m.partition) }),
        el('dt', { text: 'Key' }), el('dd', { text: m.key || '\u2013' }),
        el('dt', { text: 'Priority' }), el('dd', { text: m.priority ? String(m.priority) : 'none' }),
        el('dt', { text: 'Trace id' }), traceCell]));
      target.appendChild(el('div', { 'class': 'bar' }, [
        button('Due now', function () { write('Make ' + m.id + ' due now?', path + '/due-now', { id: m.id }, function () { return 'Made ' + m.id + ' due now'; }); }),
        button('Cancel', function () { write('Cancel ' + m.id + '?', path + '/cancel', { id: m.id }, function () { return 'Cancelled ' + m.id; }); }, true)]));
      target.appendChild(el('h3', { text: 'Headers' }));
      var names = Object.keys(m.headers || {});
      target.appendChild(names.length ? table(['Name', 'Value'], names.map(function (name) {
        return el('tr', {}, [el('td', { text: name }), el('td', {}, [el('pre', { 'data-label': 'Header ' + name, text: m.headers[name] })])]);
      })) : el('p', { text: 'No headers.' }));
      target.appendChild(el('h3', { text: m.payloadHex ? 'Payload (binary, in hex)' : 'Payload' }));
      target.appendChild(el('pre', { id: 'detail-payload', 'class': 'payload detail', 'data-label': 'Payload of ' + m.id, text: m.payloadHex || pretty(m.payload) }));
    }, function (error) {
      if (error.message.indexOf('404') === 0 && error.message.indexOf('No scheduled message') >= 0) {
        return whereabouts(queue, id, target);
      }
      throw error;
    });
  }

  // ---- live view: the page is read again every few seconds unless paused, hidden, or
  // the operator is typing or a read is still under way
  var LIVE_EVERY_MS = 5000;
  var live = !(window.localStorage && window.localStorage.getItem('delayqueue.live') === 'paused');
  var routing = false;

  function liveToggle() {
    var toggle = document.getElementById('live');
    toggle.textContent = live ? 'Live: on' : 'Live: paused';
    toggle.setAttribute('aria-pressed', String(live));
    toggle.onclick = function () {
      live = !live;
      if (window.localStorage) { window.localStorage.setItem('delayqueue.live', live ? 'on' : 'paused'); }
      liveToggle();
    };
  }

  function typing() {
    var active = document.activeElement;
    return active && (active.tagName === 'INPUT' || active.tagName === 'TEXTAREA' || active.tagName === 'SELECT');
  }

  window.setInterval(function () {
    if (live && !routing && !document.hidden && !typing()) {
      // relative times move on in place; the page is replaced only when its data changed
      main.querySelectorAll('time[datetime]').forEach(function (time) { time.textContent = relative(time.getAttribute('datetime')); });
      route(true);
    }
  }, LIVE_EVERY_MS);

  // what a page shows, relative times aside (they move on by themselves)
  function signature(node) {
    var copy = node.cloneNode(true);
    copy.querySelectorAll('time[datetime]').forEach(function (time) { time.textContent = time.getAttribute('datetime'); });
    return copy.textContent;
  }

  // renders the page of the current hash; quietly (a live refresh) into a detached copy
  // that replaces the page only when what it shows changed, and never over a route the
  // operator started meanwhile
  var generation = 0;
  function route(quietly) {
    routing = true;
    var mine = ++generation;
    var target = quietly === true ? document.createElement('div') : main;
    var hash = window.location.hash || '';
    var done;
    if (hash.indexOf('#q/') === 0) {
      var rest = hash.substring(3);
      var at = rest.indexOf('/m/');
      done = at >= 0 ? messagePage(decodeURIComponent(rest.substring(0, at)), decodeURIComponent(rest.substring(at + 3)), target)
        : queuePage(decodeURIComponent(rest), target);
    }
    else {
      done = queuesPage(target);
    }
    return done.then(function () {
      if (target !== main && mine === generation && signature(target) !== signature(main)) {
        main.textContent = '';
        while (target.firstChild) { main.appendChild(target.firstChild); }
      }
      markScrollables(main);
    }, function (error) {
      // a failed route leaves nothing of the previous page under its error
      if (mine === generation) { main.textContent = ''; notice(error.message, true); }
    }).then(function () { if (mine === generation) { routing = false; } });
  }

  // a stack trace opened, or a window resized, may make a region scroll (or stop)
  main.addEventListener('toggle', function () { markScrollables(main); }, true);
  window.addEventListener('resize', function () { markScrollables(main); });
  // a link may open a queue's page on another tab than the schedule
  var nextTab = null;
  window.addEventListener('hashchange', function () { tab = nextTab || 'scheduled'; nextTab = null; cursors = []; jumped = null; selected = {}; notice(''); route(); });
  api('session').then(function (s) {
    session = s;
    document.getElementById('mode').textContent = s.canWrite ? 'writes enabled' : (s.readOnly ? 'read-only' : 'read-only for you');
    document.getElementById('mode').title = s.whyNot || '';
    document.getElementById('user').textContent = s.user ? 'signed in as ' + s.user : '';
    zoneToggle();
    liveToggle();
    route();
  }, function (error) { notice(error.message, true); });
})();

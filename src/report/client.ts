/**
 * The report page's only script, hand-written and small: the trajectory viewer (built from the
 * JSON data block with `textContent`, never `innerHTML`, so model text cannot become markup), the
 * grid's view switch and click-through, and the attempt tabs. Charts are static SVG and need no
 * script. Kept as a string because it runs in the browser, not in Node; `client.test.ts` parses it
 * and the browser test runs it.
 */
export const CLIENT_JS = String.raw`(function () {
  'use strict'
  var dataNode = document.getElementById('seqk-data')
  if (!dataNode) return
  var data = JSON.parse(dataNode.textContent || '{}')
  var cells = data.cells || []
  var benchmarks = data.benchmarks || []
  var strings = data.strings || []
  function S(i) { return typeof i === 'number' ? strings[i] : i }
  var byKey = new Map()
  var byTask = new Map()
  ;(data.traj || []).forEach(function (t) {
    byKey.set(t.c + '\u0000' + t.t + '\u0000' + t.r, t)
    var key = t.c + '\u0000' + t.t
    if (!byTask.has(key)) byTask.set(key, [])
    byTask.get(key).push(t)
  })
  byTask.forEach(function (ts) { ts.sort(function (x, y) { return x.r - y.r }) })

  function el(tag, attrs) {
    var node = document.createElement(tag)
    if (attrs) Object.keys(attrs).forEach(function (k) {
      var v = attrs[k]
      if (v === null || v === undefined || v === false) return
      if (k === 'class') node.className = v
      else if (k === 'style') node.style.cssText = v
      else node.setAttribute(k, v === true ? '' : String(v))
    })
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i])
    return node
  }
  function append(node, kid) {
    if (kid === null || kid === undefined || kid === false) return
    if (Array.isArray(kid)) kid.forEach(function (k) { append(node, k) })
    else node.append(kid instanceof Node ? kid : String(kid))
  }
  function lines(text) {
    if (!text) return []
    var out = text.split(/\r?\n/)
    if (out[out.length - 1] === '') out.pop()
    return out
  }
  function codeOf(a) {
    if (typeof a.x === 'number') return S(a.x)
    if (Array.isArray(a.x)) return S(a.a).slice(a.x[0], a.x[1])
    return S(a.a)
  }
  function mark(t) { return t.s === 'error' ? '!' : t.f ? '\u2713' + t.f : '\u2717' }

  var cellSel = document.getElementById('tv-cell')
  var taskSel = document.getElementById('tv-task')
  var repSel = document.getElementById('tv-repeat')
  var head = document.getElementById('tv-head')
  var list = document.getElementById('tv-attempts')

  function repeatsOf(c, task) { return byTask.get(c + '\u0000' + task) || [] }

  function fillTasks(c, wanted) {
    var tasks = benchmarks[cells[c].b].tasks
    taskSel.replaceChildren.apply(taskSel, tasks.map(function (task) {
      var marks = repeatsOf(c, task).map(mark).join(' ')
      return el('option', { value: task, selected: task === wanted }, task + (marks ? '  \u2014  ' + marks : ''))
    }))
    if (wanted !== undefined && tasks.indexOf(wanted) >= 0) taskSel.value = wanted
  }

  function fillRepeats(c, task, wanted) {
    var reps = repeatsOf(c, task)
    repSel.replaceChildren.apply(repSel, reps.map(function (t) {
      var what = t.s === 'error' ? 'infrastructure error' : t.f ? 'solved at attempt ' + t.f : 'not solved in ' + t.a.length
      return el('option', { value: String(t.r) }, 'repeat ' + t.r + ' \u2014 ' + what)
    }))
    if (wanted !== undefined && reps.some(function (t) { return t.r === wanted })) repSel.value = String(wanted)
  }

  function diffTable(before, after, runs) {
    var a = lines(before), b = lines(after), i = 0, j = 0, rows = []
    var re = /([=+-])(\d+)/g, m
    while ((m = re.exec(runs))) {
      for (var n = Number(m[2]); n > 0; n--) {
        if (m[1] === '=') rows.push(['eq', i + 1, j + 1, ' ', a[i++], j++])
        else if (m[1] === '-') rows.push(['del', i + 1, '', '\u2212', a[i++]])
        else rows.push(['add', '', j + 1, '+', b[j++]])
      }
    }
    var body = el('tbody')
    var k = 0
    while (k < rows.length) {
      var end = k
      while (end < rows.length && rows[end][0] === 'eq') end++
      var run = end - k
      // Long unchanged stretches fold to three lines of context on each side.
      if (run > 8) {
        var keepHead = k === 0 ? 0 : 3, keepTail = end === rows.length ? 0 : 3
        for (var x = k; x < k + keepHead; x++) body.append(diffRow(rows[x]))
        var hidden = rows.slice(k + keepHead, end - keepTail).map(function (r) { var tr = diffRow(r); tr.hidden = true; return tr })
        var fold = el('tr', { class: 'fold' }, el('td', { colspan: '4' }, el('button', { type: 'button' }, '\u22ef ' + hidden.length + ' unchanged lines')))
        fold.querySelector('button').addEventListener('click', (function (f, hs) { return function () { hs.forEach(function (h) { h.hidden = false }); f.remove() } })(fold, hidden))
        body.append(fold)
        hidden.forEach(function (h) { body.append(h) })
        for (var y = end - keepTail; y < end; y++) body.append(diffRow(rows[y]))
        k = end
      } else if (run > 0) {
        for (var z = k; z < end; z++) body.append(diffRow(rows[z]))
        k = end
      } else {
        body.append(diffRow(rows[k]))
        k++
      }
    }
    return el('table', { class: 'diff' }, body)
  }
  function diffRow(r) {
    return el('tr', { class: r[0] }, el('td', { class: 'ln' }, r[1]), el('td', { class: 'ln' }, r[2]), el('td', { class: 'sg' }, r[3]), el('td', { class: 'tx' }, r[4] === '' ? '\u200b' : r[4]))
  }

  function attemptCard(t, a, prev, K) {
    var cls = 'attempt ' + (a.p ? 'pass' : 'fail')
    var verdict = a.p ? '\u2713 passed' : a.o === 'load-error' ? '\u2717 did not load' : a.o === 'timeout' ? '\u2717 timed out' : a.o === 'no-answer' ? '\u2717 no answer' : '\u2717 failed'
    var meta = [a.tok + ' tokens']
    if (a.cost !== null && a.cost !== undefined) meta.push(a.cost === 0 ? '$0' : '$' + (a.cost < 0.01 ? a.cost.toFixed(4) : a.cost.toFixed(3)))
    if (a.u === true) meta.push('unmodified revision')
    if (a.fin && a.fin !== 'stop') meta.push('finish: ' + a.fin)
    var header = el('header', null,
      el('span', { class: 'num' }, (cells[t.c].kind === 'independent' ? 'Sample ' : 'Attempt ') + a.i + ' of ' + K),
      el('span', { class: 'badge ' + (a.p ? 'pass' : 'fail') }, verdict),
      el('span', { class: 'summary' }, S(a.s)),
      el('span', { class: 'meta' }, meta.join(' \u00b7 ')))

    var panes = el('div', { class: 'panes' })
    var tabs = el('div', { class: 'tabs', role: 'tablist' })
    var views = []
    if (prev && typeof a.d === 'string') {
      var st = a.ds || [0, 0]
      views.push(['diff', 'Diff vs ' + (cells[t.c].kind === 'independent' ? 'sample ' : 'attempt ') + prev.i + ' (+' + st[0] + ' \u2212' + st[1] + ')', function () { return diffTable(codeOf(prev), codeOf(a), a.d) }])
    }
    views.push(['answer', 'Answer', function () { return el('pre', { class: 'answer' }, S(a.a)) }])
    if (a.x !== undefined && codeOf(a) !== S(a.a)) views.push(['code', 'Verified code', function () { return el('pre', { class: 'answer' }, codeOf(a)) }])
    views.forEach(function (v, idx) {
      var pane = el('div', { class: 'pane pane-' + v[0], hidden: idx !== 0 })
      pane.append(v[2]())
      panes.append(pane)
      var button = el('button', { type: 'button', role: 'tab', 'aria-selected': idx === 0 ? 'true' : 'false', 'data-view': v[0] }, v[1])
      button.addEventListener('click', function () {
        Array.prototype.forEach.call(panes.children, function (p) { p.hidden = !p.classList.contains('pane-' + v[0]) })
        Array.prototype.forEach.call(tabs.children, function (b) { b.setAttribute('aria-selected', b === button ? 'true' : 'false') })
      })
      tabs.append(button)
    })

    var side = el('div', { class: 'side' })
    if (a.er !== undefined) side.append(el('h4', null, 'Error'), el('pre', { class: 'error' }, S(a.er)))
    if (a.ft && a.ft.length > 0) {
      side.append(el('h4', null, 'Failing tests (' + a.ft.length + (a.n ? ' of ' + a.n : '') + ')'))
      side.append(el('table', { class: 'tests' },
        el('thead', null, el('tr', null, el('th', null, 'call'), el('th', null, 'expected'), el('th', null, 'got'))),
        el('tbody', null, a.ft.map(function (f) {
          return el('tr', null, el('td', null, el('code', null, S(f.call !== undefined ? f.call : f.src) || '')), el('td', null, el('code', null, f.exp === undefined ? '' : S(f.exp))), el('td', null, el('code', null, f.got === undefined ? (f.err === undefined ? '' : S(f.err)) : S(f.got))))
        }))))
      if (a.more) side.append(el('p', { class: 'note' }, a.more + ' more failing tests not shown'))
    } else if (a.n) side.append(el('p', { class: 'note' }, a.p ? 'All ' + a.n + ' tests passed.' : a.n + ' tests'))
    if (a.f) side.append(el('h4', null, 'Feedback sent after this attempt (' + a.f.k + ')'), el('pre', { class: 'feedback' }, S(a.f.t)))
    else if (!a.p && cells[t.c].kind === 'sequential' && a.i < K) side.append(el('p', { class: 'note' }, 'No feedback recorded.'))
    return el('article', { class: cls, 'data-attempt': a.i }, header, el('div', { class: 'attempt-body' }, el('div', { class: 'code' }, tabs, panes), side))
  }

  function show() {
    var c = Number(cellSel.value), task = taskSel.value, r = Number(repSel.value)
    var t = byKey.get(c + '\u0000' + task + '\u0000' + r)
    var cell = cells[c]
    head.replaceChildren()
    list.replaceChildren()
    if (!t) { head.append(el('p', { class: 'note' }, 'No trajectory recorded for this task and repeat.')); return }
    var status = t.s === 'error' ? 'infrastructure error' : t.f ? 'solved at attempt ' + t.f : 'not solved within K = ' + cell.K
    head.append(
      el('div', { class: 'tv-title' }, el('span', { class: 'swatch', style: 'background:' + cell.colour }), el('strong', null, cell.id), ' \u203a ', el('code', null, t.t), ' \u203a repeat ' + t.r,
        el('span', { class: 'badge ' + (t.s === 'solved' ? 'pass' : 'fail') }, status)),
      el('div', { class: 'chips' }, cell.proto.map(function (p) { return el('span', { class: 'chip' + (p.indexOf('fp ') === 0 ? ' fp' : '') }, p) })),
      el('div', { class: 'pills' }, t.a.map(function (a) { return el('a', { class: 'pill ' + (a.p ? 'pass' : 'fail'), href: '#tv-attempt-' + a.i }, String(a.i)) })))
    if (t.e !== null && t.e !== undefined) head.append(el('pre', { class: 'error' }, S(t.e)))
    t.a.forEach(function (a, i) {
      var card = attemptCard(t, a, i > 0 ? t.a[i - 1] : null, cell.K)
      card.id = 'tv-attempt-' + a.i
      list.append(card)
    })
  }

  function select(c, task, r) {
    cellSel.value = String(c)
    fillTasks(c, task)
    fillRepeats(c, taskSel.value, r)
    show()
  }

  if (cellSel && taskSel && repSel && head && list) {
    cellSel.addEventListener('change', function () { select(Number(cellSel.value), taskSel.value, Number(repSel.value)) })
    taskSel.addEventListener('change', function () { fillRepeats(Number(cellSel.value), taskSel.value, Number(repSel.value)); show() })
    repSel.addEventListener('change', show)
    var start = data.start || { c: 0, t: benchmarks[0] && benchmarks[0].tasks[0], r: 0 }
    if (cells.length > 0) select(start.c, start.t, start.r)
  }

  // Grid: a click on a task × cell square opens that trajectory in the viewer.
  document.addEventListener('click', function (event) {
    var target = event.target instanceof Element ? event.target.closest('[data-gc]') : null
    if (!target || !cellSel) return
    var rep = target.closest('[data-r]')
    select(Number(target.getAttribute('data-gc')), target.getAttribute('data-t'), rep ? Number(rep.getAttribute('data-r')) : 0)
    var viewer = document.getElementById('trajectories')
    if (viewer) viewer.scrollIntoView({ behavior: 'smooth', block: 'start' })
  })
  document.addEventListener('keydown', function (event) {
    if ((event.key === 'Enter' || event.key === ' ') && event.target instanceof Element && event.target.hasAttribute('data-gc')) {
      event.preventDefault()
      event.target.click()
    }
  })
  // Grid: repeat-averaged or per-repeat squares.
  Array.prototype.forEach.call(document.querySelectorAll('[data-grid-view]'), function (input) {
    input.addEventListener('change', function () {
      var grid = document.getElementById(input.getAttribute('data-grid-view'))
      if (grid && input.checked) grid.setAttribute('data-view', input.value)
    })
  })
})()
`

// A match between two GTP engines, played as a match tool or a GUI plays it: through
// @sabaki/gtp's Controller (the library Sabaki itself drives engines with), with no GTP parsing
// of our own. The tests use it to run GNU Go against GNU Go, and against `tengen gtp --board`.
//
//   node tests/host/gtp_match.js --black "CMD" --white "CMD" [--size 9] [--komi 6.5]
//        [--main S --byo S --stones N] [--cwd DIR] [--max-moves N]
//
// Each CMD is a command line run by /bin/sh (`exec CMD`), so it is split, quoted and expanded
// exactly as a shell would. To both engines: name, version, protocol_version, boardsize,
// clear_board, komi, time_settings (when --main, --byo or --stones is given); then genmove to
// the side to move and play to the other, until two passes in a row, a resignation, an engine
// failure or --max-moves; then final_score to both; ONE JSON line on stdout:
//   {"black": name, "white": name, "versions": {...}, "moves": [["B","D4"], ...],
//    "result": "B+3.5" | "W+R" | ..., "end": "passes" | "resign" | "max-moves" | "error",
//    "scores": {"black": "...", "white": "..."}, "errors": [...]}
// then quit to both. The engines' stderr goes to this script's stderr, prefixed.
// @sabaki/gtp is found by Node's own lookup (NODE_PATH, a node_modules above) or in the
// repository's .venv/node, where `make venv` installs it.
//
// Start reading at main().

'use strict'

const path = require('path')
const {parseArgs} = require('util')

function loadGtp() {
  try {
    return require('@sabaki/gtp')
  } catch (err) {
    const venv = path.join(__dirname, '..', '..', '.venv', 'node')
    return require(require.resolve('@sabaki/gtp', {paths: [venv]}))
  }
}

const {Controller, Command} = loadGtp()

const OPTIONS = {
  black: {type: 'string'},
  white: {type: 'string'},
  size: {type: 'string', default: '19'},
  komi: {type: 'string', default: '7.5'},
  main: {type: 'string'},
  byo: {type: 'string'},
  stones: {type: 'string'},
  cwd: {type: 'string'},
  'max-moves': {type: 'string', default: '1000'}
}

// One engine: its Controller, the errors it gave, its stderr passed on.
function engine(side, commandLine, cwd, errors) {
  const controller = new Controller(`exec ${commandLine}`, [], {
    shell: '/bin/sh',
    cwd: cwd || process.cwd()
  })
  controller.on('stderr', ({content}) =>
    process.stderr.write(`[${side}] ${content}\n`)
  )
  controller.start()

  // Sends one command; the Response, or null when the engine refused it or is gone (both
  // noted in errors).
  async function send(name, ...args) {
    const command = {name, args: args.map(String)}
    try {
      const response = await controller.sendCommand(command)
      if (!response.error) return response
      errors.push({side, command: Command.toString(command), error: response.content})
    } catch (err) {
      errors.push({side, command: Command.toString(command), error: String(err.message)})
    }
    return null
  }

  return {side, controller, send}
}

function other(colour) {
  return colour === 'B' ? 'W' : 'B'
}

async function main() {
  const {values} = parseArgs({options: OPTIONS})
  if (!values.black || !values.white) {
    process.stderr.write('usage: gtp_match.js --black CMD --white CMD [--size N] [--komi K] ' +
      '[--main S --byo S --stones N] [--cwd DIR] [--max-moves N]\n')
    process.exit(2)
  }
  const errors = []
  const engines = {
    B: engine('black', values.black, values.cwd, errors),
    W: engine('white', values.white, values.cwd, errors)
  }
  const names = {}
  const versions = {}
  for (const colour of ['B', 'W']) {
    const e = engines[colour]
    const name = await e.send('name')
    const version = await e.send('version')
    await e.send('protocol_version')
    names[colour] = name ? name.content : ''
    versions[colour] = version ? version.content : ''
    await e.send('boardsize', values.size)
    await e.send('clear_board')
    await e.send('komi', values.komi)
    if (values.main != null || values.byo != null || values.stones != null)
      await e.send('time_settings', values.main || 0, values.byo || 0, values.stones || 0)
  }

  const moves = []
  const maxMoves = Number(values['max-moves'])
  let colour = 'B'
  let passes = 0
  let result = ''
  let end = 'max-moves'
  while (moves.length < maxMoves) {
    const answer = await engines[colour].send('genmove', colour)
    if (answer == null) {
      end = 'error'
      break
    }
    const vertex = answer.content.trim()
    if (vertex.toLowerCase() === 'resign') {
      result = `${other(colour)}+R`
      end = 'resign'
      break
    }
    const isPass = vertex.toLowerCase() === 'pass'
    moves.push([colour, isPass ? 'pass' : vertex.toUpperCase()])
    if ((await engines[other(colour)].send('play', colour, vertex)) == null) {
      end = 'error'
      break
    }
    passes = isPass ? passes + 1 : 0
    colour = other(colour)
    if (passes >= 2) {
      end = 'passes'
      break
    }
  }

  const scores = {}
  for (const c of ['B', 'W']) {
    const score = await engines[c].send('final_score')
    scores[engines[c].side] = score ? score.content : null
  }
  if (!result) result = scores.black || scores.white || '?'

  process.stdout.write(
    JSON.stringify({
      black: names.B,
      white: names.W,
      versions: {black: versions.B, white: versions.W},
      moves,
      result,
      end,
      scores,
      errors
    }) + '\n'
  )
  await Promise.all([engines.B.controller.stop(), engines.W.controller.stop()])
}

main().catch(err => {
  process.stderr.write(`gtp_match: ${err.stack || err}\n`)
  process.exit(1)
})

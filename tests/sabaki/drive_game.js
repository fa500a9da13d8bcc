// Play a short game against `fuseki gtp` with Sabaki's GTP controller.
// Usage: node drive_game.js PYTHON [SIZE] [MOVES]
// Prints one JSON object: the replies, and any error the controller saw.
const {Controller} = require('@sabaki/gtp')

async function main() {
  const [python, sizeArg, movesArg] = process.argv.slice(2)
  const size = Number(sizeArg || 9)
  const moves = Number(movesArg || 20)
  const engine = new Controller(python, ['-m', 'fuseki', 'gtp', '--bot', 'random', '--seed', '1', '--never-resign'])
  engine.start()
  const log = []
  const send = async (name, ...args) => {
    const response = await engine.sendCommand({name, args: args.map(String)})
    log.push({command: [name, ...args].join(' '), error: response.error, content: response.content})
    return response
  }
  try {
    await send('name')
    await send('protocol_version')
    await send('boardsize', size)
    await send('clear_board')
    await send('komi', 7.5)
    let passes = 0
    for (let i = 0; i < moves && passes < 2; i++) {
      const color = i % 2 === 0 ? 'B' : 'W'
      const r = await send('genmove', color)
      passes = r.content.toLowerCase() === 'pass' ? passes + 1 : 0
    }
    await send('play', 'B', 'pass')
    await send('undo')
    await send('play', 'B', 'Z99')  // an error reply, not a crash
    await send('final_score')
    await send('showboard')
  } finally {
    await engine.stop()
  }
  console.log(JSON.stringify({log}))
}

main().catch(err => {
  console.log(JSON.stringify({fatal: String(err)}))
  process.exit(1)
})

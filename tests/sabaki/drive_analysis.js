// Drive `fuseki gtp` analysis with Sabaki's GTP controller, as the Sabaki board does:
// start an analysis command with a subscriber that receives each line as it arrives,
// then send the next command, which stops the analysis and is answered after it.
// Usage: node drive_analysis.js PYTHON COMMAND [UPDATES]
// Prints one JSON object: the analysis lines with their arrival times (ms), the
// analysis response, and the response to the command that stopped it.
const {Controller} = require('@sabaki/gtp')

async function main() {
  const [python, command, updatesArg] = process.argv.slice(2)
  const want = Number(updatesArg || 4)
  const engine = new Controller(python, ['-m', 'fuseki', 'gtp', '--bot', 'mcts', '--playouts', '2000', '--seed', '1'])
  engine.start()
  const lines = []
  try {
    await engine.sendCommand({name: 'boardsize', args: ['9']})
    await engine.sendCommand({name: 'clear_board'})
    await engine.sendCommand({name: 'play', args: ['B', 'E5']})
    let enough
    const gotEnough = new Promise(resolve => (enough = resolve))
    const [name, ...args] = command.split(' ')
    const analysis = engine.sendCommand({name, args}, ({line}) => {
      if (line.startsWith('info')) {
        lines.push({at: Date.now(), line})
        if (lines.length >= want) enough()
      }
    })
    // The give-up timer is cleared once enough lines came: a pending timer keeps Node running until it fires.
    let timer
    await Promise.race([gotEnough, new Promise(resolve => (timer = setTimeout(resolve, 90000)))])
    clearTimeout(timer)
    const stopper = engine.sendCommand({name: 'name'})
    const response = await analysis
    const after = await stopper
    console.log(JSON.stringify({lines, response, after}))
  } finally {
    await engine.stop()
  }
}

main().catch(err => {
  console.log(JSON.stringify({fatal: String(err)}))
  process.exit(1)
})

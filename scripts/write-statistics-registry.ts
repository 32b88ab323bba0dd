// Writes src/protocol/statistics/all.ts: the registry's list of statistic modules, generated from the folder.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { registryFileText, statisticModules, STATISTICS_DIR } from '../src/protocol/statistics/registry-file.js'

const files = statisticModules()
writeFileSync(join(STATISTICS_DIR, 'all.ts'), registryFileText(files))
console.log(`wrote src/protocol/statistics/all.ts (${files.length} statistics)`)

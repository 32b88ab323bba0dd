import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as metrics from './index.js'

describe('vitest-seqk/metrics', () => {
  it('exports exactly the public API (other modules are written against these names)', () => {
    expect(Object.keys(metrics).sort()).toEqual(
      [
        'DIFFERENCE_INTERVAL_METHOD',
        'AGENT_METRICS',
        'agentActivity',
        'costPerSolved',
        'frequencySimilarity',
        'levenshtein',
        'sequenceSimilarity',
        'trajectoryConsistency',
        'RATE_INTERVAL_METHOD',
        'bootstrapInterval',
        'differenceInterval',
        'errorsAsFailures',
        'errorsAsSuccesses',
        'errorsLeftOut',
        'seqAtCurveCensored',
        'seqAtIntervalCensored',
        'intervalMethodText',
        'passAtInterval',
        'rateInterval',
        'createRng',
        'criterionRepair',
        'gain',
        'pairedBootstrap',
        'passAtCurve',
        'passAtK',
        'passHatCurve',
        'passHatInterval',
        'passHatK',
        'DEFAULT_G_PASS_TAUS',
        'gPassAtK',
        'gPassCurve',
        'gPassInterval',
        'gPassThreshold',
        'compareAtEqualCost',
        'rateAtCost',
        'coverAt',
        'coverAtInterval',
        'coverCurve',
        'DEFAULT_COVER_TAUS',
        'passAtFromCover',
        'triesWithin',
        'seqHatCurve',
        'seqHatInterval',
        'coefficientOfVariation',
        'outcomeConsistency',
        'outcomeConsistencyOf',
        'resourceConsistency',
        'headlineMetric',
        'measures',
        'METRIC_IDS',
        'METRICS',
        'reliabilityMetric',
        'revisionTiming',
        'seedFrom',
        'seqAt',
        'seqAtCurve',
        'seqAtInterval',
        'unmodifiedRevisions',
        'countUnmodified',
        'censoredRow',
        'firstRepeats',
        'hasCensored',
        'repeatsOf',
        'taskRate',
        'taskRates',
        'taskTrials',
        'cohensKappa',
        'verdictAgreement',
        'bestScoreCurve',
        'binaryScores',
        'scoreCurve',
        'scoreInterval',
        'taskBestScores',
      ].sort(),
    )
  })

  it('imports nothing from the rest of the project and no package, only siblings, core/ and node built-ins', () => {
    // DESIGN.md section 3: metrics/ is the bottom of the dependency graph, over core/ (the leaf that
    // holds the one edit distance, which core's option checks use too).
    const folder = fileURLToPath(new URL('.', import.meta.url))
    const sources = readdirSync(folder).filter((name) => name.endsWith('.ts') && !/\.(test|bench)\.ts$/.test(name))
    expect(sources.length).toBeGreaterThan(5)
    for (const name of sources) {
      const text = readFileSync(`${folder}${name}`, 'utf8')
      for (const [, specifier] of text.matchAll(/\bfrom\s+'([^']+)'/g)) {
        expect(specifier, `${name} imports ${String(specifier)}`).toMatch(
          /^(\.\/[\w-]+\.js|\.\.\/core\/[\w-]+\.js|node:[\w/]+)$/,
        )
      }
    }
  })
})

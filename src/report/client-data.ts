/**
 * The report page's JSON data block (`<script type="application/json" id="seqk-data">`): written
 * by `html.ts`, read by the viewer in `client/viewer.ts`. Both sides are type-checked against
 * these types, so a change on one side fails on the other. Types only: this file is part of both
 * the Node and the browser program, and imports only the contract's closed lists (which import nothing).
 */
import type { FeedbackKind, TrajectoryStatus } from '../core/kinds.js'

/** An index into {@link ReportData.strings}. */
export type TextRef = number

/** A failing test as the viewer shows it; texts are string-table indices. */
export interface ClientFailingTest {
  call?: TextRef
  exp?: TextRef
  got?: TextRef
  err?: TextRef
  /** The test's source, only when there is no call to show. */
  src?: TextRef
}

/**
 * A revision's annotation as the viewer shows it (paper §5.2.2): did this attempt address the
 * feedback the previous one got? Requests are as the feedback text names them (`test_2`, `c3`).
 */
export interface ClientAnnotation {
  /** The class; absent when the annotation failed (`err`). */
  k?: 'unhelpful' | 'some' | 'all'
  /** Who judged, e.g. `derived/1` or `llm annotator.v1@ab12 (openai:gpt-5-mini)`. */
  by: string
  /** The feedback's requests. */
  req: string[]
  /** The requests the revision satisfied (fully or partly). */
  sat: string[]
  /** Of `sat`, those satisfied only partly (LLM annotator). */
  part?: string[]
  /** Requests the verdict did not report (counted as not satisfied). */
  un?: string[]
  /** The annotator's reason (LLM annotator). */
  why?: TextRef
  /** Why the annotation failed (an infrastructure error of this annotation only). */
  err?: TextRef
  /** Drawn into a sample (`annotate: { sample }`). */
  smp?: true
}

/**
 * One attempt as the viewer reads it. Texts are indices into a shared string table: simulated
 * actors, unmodified revisions and repeated failing tests say the same things many times, and the
 * table stores each text once.
 */
export interface ClientAttempt {
  /** 1-based attempt or sample index. */
  i: number
  /** The answer. */
  a: TextRef
  /** The verified code: a [start, end) slice of the answer, or its own text when it is not one. */
  x?: [number, number] | TextRef
  /** Passed. */
  p: boolean
  /** The verifier's outcome. */
  o: 'passed' | 'failed' | 'load-error' | 'timeout' | 'no-answer'
  /** The verifier's summary. */
  s: TextRef
  /** The verifier's error. */
  er?: TextRef
  /** Number of tests run. */
  n?: number
  /** The first failing tests. */
  ft?: ClientFailingTest[]
  /** Failing tests not kept in `ft`. */
  more?: number
  /** Feedback sent after this attempt. */
  f: { k: FeedbackKind; t: TextRef } | null
  /** Revision identical to the previous attempt (null for attempt 1). */
  u: boolean | null
  /** Tokens, helper calls included; null when a call reported no usage. */
  tok: number | null
  cost: number | null
  /** Finish reason. */
  fin: 'stop' | 'length' | 'refusal' | 'other'
  /** Line diff against the previous attempt's code, as run lengths (`diff.ts` `encodeDiff`). */
  d?: string
  /** Lines [added, removed] in `d`. */
  ds?: [number, number]
  /** This revision's annotation against the previous attempt's feedback (cells whose revisions were annotated). */
  ann?: ClientAnnotation
  /** An agent's episode: why it ended, and its turns with their tool calls. */
  ep?: ClientEpisode
}

/** An agent's episode as the viewer reads it: why it ended (`e`) and each turn in order. */
export interface ClientEpisode {
  e: 'answer' | 'steps' | 'tokens' | 'time' | 'cost'
  /** Turns: the model's text, its tokens (null: unknown) and cost, and its tool calls (name, arguments, result or error, ms). */
  t: {
    x: TextRef
    tok: number | null
    cost: number | null
    c: { n: string; a: TextRef; r?: TextRef; er?: TextRef; ms: number }[]
  }[]
}

/** One trajectory as the viewer reads it. */
export interface ClientTrajectory {
  /** Index into {@link ReportData.cells}. */
  c: number
  /** Task id. */
  t: string
  /** Repeat. */
  r: number
  s: TrajectoryStatus
  /** First passing attempt. */
  f: number | null
  /** The infrastructure error, as one text. */
  e: TextRef | null
  a: ClientAttempt[]
}

/** One cell as the viewer reads it. */
export interface ClientCell {
  /** Index into {@link ReportData.benchmarks}. */
  b: number
  id: string
  actor: string
  mode: string
  kind: 'sequential' | 'independent'
  /** Budget. */
  K: number
  /** Protocol fingerprint. */
  fp: string
  /** The actor's colour in the charts (absent from the JSON when it has none). */
  colour: string | undefined
  /** The protocol chips shown under the title. */
  proto: string[]
}

/** Where the viewer opens. */
export interface ClientStart {
  c: number
  t: string
  r: number
}

/** The whole data block. */
export interface ReportData {
  cells: ClientCell[]
  benchmarks: { name: string; tasks: string[] }[]
  traj: ClientTrajectory[]
  strings: string[]
  start: ClientStart | null
  /** Set when the page keeps only some trajectories (a big run): how many of how many, within how many bytes. */
  kept?: { shown: number; of: number; maxBytes: number }
}

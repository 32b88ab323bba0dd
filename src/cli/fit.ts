/**
 * The width rule of the commands' prose output (notices, rendered cards and estimates), kept in
 * one place for the commands that print more than an error.
 */
import { TEXT_WIDTH, wideFromEnv, wrapText } from '../core/text-layout.js'
import type { CliIo } from './run.js'

/** A text to print, wrapped to the terminal width (a wide view leaves it as it is). */
export const fit = (text: string, io: Pick<CliIo, 'env'>): string =>
  wrapText(text, wideFromEnv(io.env) ? null : TEXT_WIDTH)

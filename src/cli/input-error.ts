/** A run, eval file or flag value a command cannot use; the message names the file and the fix (exit code 1, no stack). */
export class InputError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'InputError'
  }
}

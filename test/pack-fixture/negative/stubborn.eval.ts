// A threshold that cannot be met: a stubborn actor mostly resubmits its failing answer on hard
// tasks, yet every trajectory is required to be solved by attempt 3.
import { actors, feedback, seqEval, verifiers } from 'vitest-seqk'

const code = (body: string): string => `\`\`\`python\n${body.trim()}\n\`\`\``

const total = `
def price(item):
    return item['qty'] * item['unit']


def total(items):
    return sum(price(i) for i in items)
`

const initials = `
def initial(name):
    return name[0].upper()


def initials(names):
    return ''.join(initial(n) for n in names)
`

seqEval('stubborn cannot make it', {
  tasks: [
    {
      id: 'neg/total',
      prompt: 'Write `price(item)` (qty × unit), then `total(items)` summing `price` over the items.',
      tests: "assert total([{'qty': 2, 'unit': 3}, {'qty': 1, 'unit': 4}]) == 10\nassert total([]) == 0",
      simulation: {
        difficulty: 1,
        correct: [code(total)],
        wrong: [code(total.replace("* item['unit']", "+ item['unit']")), code(total.replace('sum(', 'max('))],
      },
    },
    {
      id: 'neg/initials',
      prompt: 'Write `initial(name)` (first letter, upper case), then `initials(names)` joining them.',
      tests: "assert initials(['ada', 'grace']) == 'AG'\nassert initials([]) == ''",
      simulation: {
        difficulty: 1,
        correct: [code(initials)],
        wrong: [code(initials.replace('.upper()', '')), code(initials.replace("''.join", "' '.join"))],
      },
    },
  ],
  actors: [actors.simulated({ profile: 'stubborn' })],
  verifier: verifiers.pythonTests(),
  budget: 3,
  repeats: 3,
  modes: { binary: { feedback: feedback.binary(), expect: { seqAt: { 3: 1 } } } },
})

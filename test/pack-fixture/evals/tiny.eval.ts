// A user's eval: three self-written, self-invoking Python tasks, two simulated actors, real Python.
import { actors, feedback, seqEval, verifiers } from 'vitest-seqk'

const code = (body: string): string => `Here is my solution.\n\n\`\`\`python\n${body.trim()}\n\`\`\`\n`

const squares = `
def square(x):
    return x * x


def sum_of_squares(xs):
    return sum(square(x) for x in xs)
`

const vowels = `
def count_vowels(word):
    return sum(1 for ch in word.lower() if ch in 'aeiou')


def vowel_counts(words):
    return [count_vowels(w) for w in words]
`

const palindromes = `
def is_palindrome(s):
    return s == s[::-1]


def palindromes(words):
    return [w for w in words if is_palindrome(w)]
`

const tasks = [
  {
    id: 'tiny/squares',
    prompt: 'Write `square(x)`, then `sum_of_squares(xs)` which returns the sum of `square(x)` over xs.',
    tests: [
      'assert sum_of_squares([1, 2, 3]) == 14',
      'assert sum_of_squares([]) == 0',
      'assert sum_of_squares([-2]) == 4',
    ].join('\n'),
    entryPoint: 'sum_of_squares',
    simulation: {
      difficulty: 0.2,
      correct: [code(squares)],
      wrong: [code(squares.replace('x * x', 'x + x')), code(squares.replace('sum(', 'max('))],
    },
  },
  {
    id: 'tiny/vowels',
    prompt: 'Write `count_vowels(word)` (a, e, i, o, u, any case), then `vowel_counts(words)` calling it per word.',
    tests: [
      "assert vowel_counts(['banana', 'sky']) == [3, 0]",
      'assert vowel_counts([]) == []',
      "assert vowel_counts(['AEiou']) == [5]",
    ].join('\n'),
    entryPoint: 'vowel_counts',
    simulation: {
      difficulty: 0.3,
      correct: [code(vowels)],
      wrong: [code(vowels.replace('word.lower()', 'word')), code(vowels.replace("'aeiou'", "'aeio'"))],
    },
  },
  {
    id: 'tiny/palindromes',
    prompt: 'Write `is_palindrome(s)`, then `palindromes(words)` returning the words that are palindromes, in order.',
    tests: [
      "assert palindromes(['level', 'abc', 'noon']) == ['level', 'noon']",
      'assert palindromes([]) == []',
      "assert palindromes(['']) == ['']",
    ].join('\n'),
    entryPoint: 'palindromes',
    simulation: {
      difficulty: 0.2,
      correct: [code(palindromes)],
      wrong: [
        code(palindromes.replace('s == s[::-1]', 's[0] == s[-1]')),
        code(palindromes.replace('if is_palindrome(w)', 'if not is_palindrome(w)')),
      ],
    },
  },
]

seqEval('tiny self-invoking python', {
  tasks,
  actors: [actors.simulated({ profile: 'reviser' }), actors.simulated({ profile: 'stubborn' })],
  verifier: verifiers.pythonTests(),
  budget: 3,
  repeats: 2,
  independent: true,
  modes: {
    binary: { feedback: feedback.binary(), expect: { seqAt: { 3: 0.1 } } },
    verifier: { feedback: feedback.verifier(), expect: { seqAt: { 3: 0.1 } } },
  },
})

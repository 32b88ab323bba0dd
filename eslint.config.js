// @ts-check
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.seqk/', 'coverage/', 'schemas/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name=/^(test|it|describe)$/][callee.property.name='only']",
          message: 'No .only in committed tests.',
        },
      ],
    },
  },
  {
    // The report page's script runs in the browser on model text: no Node globals, and no markup
    // sinks (DOM is built with textContent, so model text cannot become markup). Browser globals
    // need no list: typescript-eslint turns no-undef off for TS, and tsc checks names with the
    // folder's tsconfig (DOM library, no Node types).
    files: ['src/report/client/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', 'process', 'require', 'module', 'Buffer', '__dirname', '__filename', 'global'],
      'no-restricted-properties': [
        'error',
        { property: 'innerHTML', message: 'Build nodes with textContent (el), never markup from strings.' },
        { property: 'outerHTML', message: 'Build nodes with textContent (el), never markup from strings.' },
        { property: 'insertAdjacentHTML', message: 'Build nodes with textContent (el), never markup from strings.' },
        {
          property: 'createContextualFragment',
          message: 'Build nodes with textContent (el), never markup from strings.',
        },
        {
          object: 'document',
          property: 'write',
          message: 'Build nodes with textContent (el), never markup from strings.',
        },
        {
          object: 'document',
          property: 'writeln',
          message: 'Build nodes with textContent (el), never markup from strings.',
        },
      ],
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
)

// The real Chromium the browser tests drive (CI installs it with apt), launched headless with
// every request outside the page under test blocked and recorded: a page must need nothing else.
import { existsSync } from 'node:fs'
import type { BrowserContext } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)

/** A fresh headless Chromium profile at `profile`; requests `allow` refuses are aborted and pushed to `foreign`. */
export async function launchChromium(
  profile: string,
  viewport: { width: number; height: number },
  allow: (url: string) => boolean,
  foreign: string[],
): Promise<BrowserContext> {
  const { chromium } = await import('playwright-core')
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport,
    deviceScaleFactor: 1,
  })
  await context.route('**/*', (route) => {
    const url = route.request().url()
    if (allow(url)) return route.continue()
    foreign.push(url)
    return route.abort()
  })
  return context
}

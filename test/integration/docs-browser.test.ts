import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/shared/routes/route-table';
import { apiUrl, createTenant } from './support';

/**
 * The interactive documentation in a real browser: headless Chromium from the system (`CHROMIUM_PATH`, or
 * `chromium` on the PATH, installed by bin/setup.sh; never a downloaded browser) driven by playwright-core.
 */
const chromiumPath = (): string => {
  const configured = process.env.CHROMIUM_PATH;
  if (configured && existsSync(configured)) return configured;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim();
    } catch {
      // try the next name
    }
  }
  throw new Error('No Chromium found: set CHROMIUM_PATH or install Debian chromium (bin/setup.sh).');
};

let browser: Browser;
const folder = mkdtempSync(join(tmpdir(), 'docs-browser-'));

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true });
});

afterAll(async () => {
  await browser?.close();
});

describe('GET /v1/docs in headless Chromium', () => {
  it('lists every operation, requests nothing from other hosts, and tries GET /v1/self with a pasted key', async () => {
    const tenant = await createTenant({ name: 'Docs Browser Company' });
    const context = await browser.newContext({ viewport: { width: 1280, height: 1600 } });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => {
      requested.push(request.url());
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });

    const answer = await page.goto(`${apiUrl}/v1/docs`);
    expect(answer?.status()).toBe(200);
    await page.waitForSelector('.opblock', { timeout: 20_000 });

    const listed = await page.$$eval('.opblock', (blocks) =>
      blocks.map(
        (b) =>
          `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b
            .querySelector('.opblock-summary-path')
            ?.getAttribute('data-path')}`,
      ),
    );
    expect(listed.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());

    await page.screenshot({ path: join(folder, 'docs-top.png') });

    // Try it: paste the key under Authorize (the x-api-key scheme), then run GET /v1/self.
    await page.click('button.authorize');
    const apiKeyForm = page.locator('.auth-container', { hasText: 'x-api-key' }).first();
    await apiKeyForm.locator('input').fill(tenant.apiKey);
    await apiKeyForm.locator('button.authorize').click();
    await page.click('button.btn-done');
    const self = page.locator('.opblock', { has: page.locator('[data-path="/v1/self"]') });
    await self.locator('.opblock-summary').click();
    await self.locator('button.try-out__btn').click();
    await self.locator('button.execute').click();
    await self.locator('.live-responses-table').scrollIntoViewIfNeeded();
    const screenshot = join(folder, 'docs.png');
    const status = self.locator('.live-responses-table tbody .response-col_status').first();
    try {
      await expect.poll(async () => (await status.textContent())?.trim(), { timeout: 15_000 }).toBe('200');
    } finally {
      await page.screenshot({ path: screenshot, fullPage: false });
      console.info(`docs screenshot: ${screenshot}`);
    }
    const body = await self
      .locator('.live-responses-table .microlight, .live-responses-table pre')
      .first()
      .textContent();
    expect(body).toContain('Docs Browser Company');
    expect(body).toContain(tenant.companyId);

    const origin = new URL(apiUrl).origin;
    const elsewhere = requested.filter((url) => /^https?:/.test(url) && new URL(url).origin !== origin);
    expect(elsewhere).toEqual([]);
    expect(requested).toContain(`${origin}/v1/openapi.json`);
    expect(requested).toContain(`${origin}/v1/self`);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});

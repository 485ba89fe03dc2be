// Requests- and tokens-per-minute caps: on a fake clock, no 60-second window ever holds more
// requests or more reserved tokens than the caps allow, and requests wait no longer than needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RateCap } from "../../../lib/providers/rate-cap";

/** A clock that moves only when the cap sleeps. */
function fakeClock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

test("requests per minute: the fourth of three per minute waits for the first to leave the window", async () => {
  const clock = fakeClock();
  const cap = new RateCap({ requestsPerMinute: 3 }, clock.now, clock.sleep);
  const at: number[] = [];
  for (let i = 0; i < 7; i++) {
    await cap.acquire();
    at.push(clock.now());
  }
  assert.deepEqual(at, [0, 0, 0, 60_000, 60_000, 60_000, 120_000]);
});

test("tokens per minute: reservations count until settled; the settled usage frees the rest", async () => {
  const clock = fakeClock();
  const cap = new RateCap({ tokensPerMinute: 1000 }, clock.now, clock.sleep);
  const first = await cap.acquire(600);
  first.settle(100); // the answer spent less than reserved
  await cap.acquire(600);
  assert.equal(clock.now(), 0, "100 + 600 fit in 1000");
  await cap.acquire(600);
  assert.equal(clock.now(), 60_000, "100 + 600 + 600 do not: wait for the window to empty");
  // A request larger than the whole cap goes alone in an empty window rather than never.
  await cap.acquire(5000);
  assert.equal(clock.now(), 120_000);
});

test("no window ever exceeds the caps, whatever the sizes and settlements (seeded random load)", async () => {
  const clock = fakeClock();
  const rpm = 20;
  const tpm = 50_000;
  const cap = new RateCap({ requestsPerMinute: rpm, tokensPerMinute: tpm }, clock.now, clock.sleep);
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const log: { at: number; tokens: number }[] = [];
  for (let i = 0; i < 300; i++) {
    const reserve = Math.floor(rand() * 8000);
    const ticket = await cap.acquire(reserve);
    const spent = Math.floor(reserve * rand());
    ticket.settle(spent);
    log.push({ at: clock.now(), tokens: spent });
    if (rand() < 0.3) await clock.sleep(Math.floor(rand() * 5000));
  }
  for (const e of log) {
    const inWindow = log.filter((x) => x.at > e.at - 60_000 && x.at <= e.at);
    assert.ok(inWindow.length <= rpm, `${inWindow.length} requests in the minute up to ${e.at}`);
    assert.ok(inWindow.reduce((n, x) => n + x.tokens, 0) <= tpm, `tokens over the cap in the minute up to ${e.at}`);
  }
  assert.ok(clock.now() >= (300 / rpm - 1) * 60_000, "300 requests at 20 a minute take at least 14 minutes");
});

test("requests run under the cap send at most the cap per window, with the real clock", async () => {
  const sent: number[] = [];
  const cap = new RateCap({ requestsPerMinute: 2, windowMs: 150 });
  const call = async () => {
    sent.push(Date.now());
    return { usage: 6 };
  };
  await Promise.all(Array.from({ length: 6 }, () => cap.run(10, call, (r) => r.usage)));
  assert.equal(sent.length, 6);
  // A request is admitted a moment before the model records it (an await or two, longer on a busy
  // machine), so windows are checked with 40 ms to spare; the fake-clock tests above are exact.
  for (const t of sent) assert.ok(sent.filter((x) => x > t - 110 && x <= t).length <= 2, `more than 2 requests within 110 ms of ${t}: ${sent.map((x) => x - sent[0])}`);
  assert.ok(sent[5] - sent[0] >= 290, `6 requests at 2 per 150 ms took ${sent[5] - sent[0]} ms`);
});

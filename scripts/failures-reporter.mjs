// A second node:test reporter: collects only the failures, so the end of a long
// TAP log says which tests failed and why (CI logs often keep only their tail).
export default async function* failuresReporter(source) {
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, line, details } = event.data;
    const error = details?.error;
    // Suites fail when a subtest does; the subtest already says why.
    if (error?.failureType === 'subtestsFailed') continue;
    const cause = error?.cause ?? error;
    const message = String(cause?.message ?? cause ?? 'failed')
      .split('\n')
      .slice(0, 12)
      .join('\n    ');
    failures.push(`✖ ${name}\n    at ${file ?? '?'}${line ? `:${line}` : ''}\n    ${message}`);
  }
  yield failures.length === 0 ? '' : `\n# failing tests (${failures.length})\n${failures.join('\n\n')}\n`;
}

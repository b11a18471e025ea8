import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { anchorsOf, brokenLinks, githubAnchor, linksOf, missingCodePaths } from './markdown-links';

const ROOT = join(__dirname, '../../..');

describe('links between the documentation pages', () => {
  it('resolve: every relative link of README.md, docs/**/*.md and the other Markdown files names a file of the repository, every #anchor a heading of its page', () => {
    const pages = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f.endsWith('.md') && !f.includes('node_modules/'));
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/README.md');
    expect(brokenLinks(ROOT, pages).map((b) => `${b.file}:${b.line}: ${b.target}: ${b.reason}`)).toEqual([]);
  });

  it('name code that exists: every repository path README.md and docs/**/*.md write in inline code is a file or folder of the repository', () => {
    const pages = [
      'README.md',
      ...execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'docs/*.md'], { cwd: ROOT, encoding: 'utf8' })
        .split('\n')
        .filter(Boolean),
    ];
    expect(pages.length).toBeGreaterThan(5);
    expect(missingCodePaths(ROOT, pages).map((m) => `${m.file}:${m.line}: ${m.path}`)).toEqual([]);
  });
});

describe('githubAnchor (GitHub’s anchor rules)', () => {
  it.each([
    ['Payload formatter isolation', 'payload-formatter-isolation'],
    ['How the components run (@nestjs/microservices)', 'how-the-components-run-nestjsmicroservices'],
    ['Batch routes (JS, NS, AS)', 'batch-routes-js-ns-as'],
    ['Limits & retries', 'limits--retries'],
    ['Application Server: webhooks', 'application-server-webhooks'],
    ['`GS_UDP_PORT` and `_INBOX.>`', 'gs_udp_port-and-_inbox'],
    ['The [MAC layer](mac-layer.md) in *one* page', 'the-mac-layer-in-one-page'],
    ['Gateway → NS: 1.0.x – 1.1', 'gateway--ns-10x--11'],
    ['snake_case and _emphasis_', 'snake_case-and-emphasis'],
  ])('%s → #%s', (heading, anchor) => expect(githubAnchor(heading)).toBe(anchor));

  it('numbers repeated headings, skips code blocks and counts explicit anchors', () => {
    const page = ['# Events', '## Code layout', '```sh', '# not a heading', '```', '## Code layout', 'Setext', '---', '<a id="here"></a>'].join('\n');
    expect([...anchorsOf(page)]).toEqual(['events', 'code-layout', 'code-layout-1', 'setext', 'here']);
  });

  it('finds links in prose, not in code', () => {
    const page = ['See [a](a.md#x) and ![b](img/b.png "title").', '`[not](code.md)`', '```', '[not](block.md)', '```', '[ref]: ref.md'].join('\n');
    expect(linksOf('p.md', page).map((l) => l.target)).toEqual(['a.md#x', 'img/b.png', 'ref.md']);
  });
});

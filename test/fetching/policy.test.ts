// The fetch policy's parts: which addresses are not public, which URLs and files are allowed, and
// the settings with their defaults.
import path from 'node:path';
import { loadFetchPolicy } from '../../src/config/settings';
import { isNonPublicAddress } from '../../src/fetching/guarded-fetch';
import { localFileRefusal, urlRefusal } from '../../src/fetching/policy';
import { ConfigError } from '../../src/platform-client/config';
import { testFetchPolicy } from '../helpers/fetch-policy';

describe('isNonPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
  ])('refuses %s', (ip) => expect(isNonPublicAddress(ip)).toBe(true));
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700::1111', '172.32.0.1'])('allows %s', (ip) =>
    expect(isNonPublicAddress(ip)).toBe(false),
  );
});

describe('urlRefusal', () => {
  const policy = testFetchPolicy({ allowedHosts: ['cdn.example.com', '*.files.example.org', '127.0.0.1:8787'] });
  it.each([
    ['https://cdn.example.com/a.mp4', undefined],
    ['https://eu.files.example.org/a.mp4', undefined],
    ['http://127.0.0.1:8787/_files/a.mp4', undefined],
    ['https://files.example.org/a.mp4', 'host files.example.org is not in FETCH_ALLOWED_HOSTS'],
    ['https://evil.com/?cdn.example.com', 'host evil.com is not in FETCH_ALLOWED_HOSTS'],
    ['https://cdn.example.com.evil.com/', 'host cdn.example.com.evil.com is not in FETCH_ALLOWED_HOSTS'],
    ['http://127.0.0.1:9999/', 'host 127.0.0.1:9999 is not in FETCH_ALLOWED_HOSTS'],
    [
      'http://cdn.example.com/a.mp4',
      'plain http is fetched only from a loopback host listed in FETCH_ALLOWED_HOSTS (use https for cdn.example.com)',
    ],
    ['https://u:p@cdn.example.com/', 'URLs with a user name or password are not fetched'],
    ['ftp://cdn.example.com/', 'ftp: URLs are not fetched'],
  ])('%s', (url, refusal) => expect(urlRefusal(new URL(url), policy)).toBe(refusal));
});

describe('localFileRefusal', () => {
  const policy = testFetchPolicy({ inputFileDir: '/srv/inputs' });
  it('allows files inside INPUT_FILE_DIR only', () => {
    expect(localFileRefusal('/srv/inputs/a/b.jsonl', policy)).toBeUndefined();
    expect(localFileRefusal('/srv/inputs/../secrets.jsonl', policy)).toMatch(/is outside INPUT_FILE_DIR/);
    expect(localFileRefusal('/srv/inputs-other/b.jsonl', policy)).toMatch(/is outside INPUT_FILE_DIR/);
    expect(localFileRefusal('/srv/inputs', policy)).toMatch(/is outside INPUT_FILE_DIR/);
  });
});

describe('loadFetchPolicy', () => {
  it('defaults to the platform host, .data/inputs and 2048 MB', () => {
    expect(loadFetchPolicy({}, 'http://127.0.0.1:8787')).toEqual({
      allowedHosts: ['127.0.0.1:8787'],
      inputFileDir: path.resolve('.data', 'inputs'),
      maxDownloadBytes: 2048 * 2 ** 20,
    });
  });
  it('reads the settings, and refuses a bad host entry', () => {
    const p = loadFetchPolicy(
      { FETCH_ALLOWED_HOSTS: ' api.example.com, *.cdn.example.com ', INPUT_FILE_DIR: '/srv/in', DOWNLOAD_MAX_MB: '10' },
      'https://api.example.com',
    );
    expect(p).toEqual({
      allowedHosts: ['api.example.com', '*.cdn.example.com'],
      inputFileDir: '/srv/in',
      maxDownloadBytes: 10 * 2 ** 20,
    });
    expect(() => loadFetchPolicy({ FETCH_ALLOWED_HOSTS: 'https://x.com/path' }, 'https://a.b')).toThrow(ConfigError);
  });
});

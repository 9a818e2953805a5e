import { imageSourceProblems, readImageInfo, decodeBase64Prefix } from '@platform-ops/client';
import { dataUrl, jpegBytes, jpegDataUrl, pngBytes, pngDataUrl } from '../helpers/images';

describe('image rules (start image of image-to-video)', () => {
  it('reads PNG and JPEG sizes from real headers', () => {
    expect(readImageInfo(pngBytes(640, 480))).toEqual({ format: 'png', width: 640, height: 480 });
    expect(readImageInfo(jpegBytes(301, 750))).toEqual({ format: 'jpeg', width: 301, height: 750 });
    expect(readImageInfo(Buffer.from('GIF89a....................'))).toBeUndefined();
  });

  it('decodes base64 like Buffer does', () => {
    for (const text of ['', 'a', 'ab', 'abc', 'abcd', 'hello world!!']) {
      const b64 = Buffer.from(text).toString('base64');
      expect(Buffer.from(decodeBase64Prefix(b64)!).toString()).toBe(text);
    }
    expect(decodeBase64Prefix('%%%%')).toBeUndefined();
  });

  it.each([
    ['a good PNG data URL', pngDataUrl(1280, 720), []],
    ['a good JPEG data URL', jpegDataUrl(300, 750), []],
    ['a URL ending in .png', 'https://cdn.example.com/a/b/frame.PNG?sig=1', []],
    ['a URL without an extension (cannot be checked)', 'https://cdn.example.com/img/123', []],
    ['a .webp URL', 'https://cdn.example.com/a.webp', ['must be a .jpg, .jpeg or .png image (URL ends in .webp)']],
    ['an ftp URL', 'ftp://example.com/a.png', ['must be an http(s) URL or a data:image/…;base64 URL']],
    ['plain text', 'not an image', ['must be an http(s) URL or a data:image/…;base64 URL']],
    ['a GIF data URL', 'data:image/gif;base64,R0lGODlh', [expect.stringContaining('.jpg, .jpeg or .png')]],
    [
      'PNG bytes labelled as JPEG but not an image',
      dataUrl('image/jpeg', Buffer.from('hello')),
      [expect.stringContaining('neither PNG nor JPEG')],
    ],
    ['a too small image', pngDataUrl(299, 600), ['width and height must be at least 300 px (is 299x600)']],
    ['a too wide image', pngDataUrl(2600, 1000), ['aspect ratio must be between 1:2.5 and 2.5:1 (is 2600:1000)']],
    ['a too tall image', jpegDataUrl(300, 751), ['aspect ratio must be between 1:2.5 and 2.5:1 (is 300:751)']],
  ])('%s', (_name, value, expected) => {
    expect(imageSourceProblems(value)).toEqual(expected);
  });

  it('refuses an image over 10 MB before decoding it', () => {
    const big = Buffer.concat([pngBytes(1000, 1000), Buffer.alloc(10 * 1024 * 1024)]);
    expect(imageSourceProblems(dataUrl('image/png', big))).toEqual([
      expect.stringMatching(/^must be at most 10 MB \(is 10\.0 MB\)$/),
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../src/base/errors.js';
import { isUsableProxyUrl, readProxySettings } from '../../../src/http/proxy-env.js';

const P1 = 'http://127.0.0.1:3128';
const P2 = 'http://127.0.0.2:8080';

describe('readProxySettings', () => {
  it.each<[string, Record<string, string>, ReturnType<typeof readProxySettings>]>([
    ['no variables', {}, undefined],
    ['only NO_PROXY', { NO_PROXY: 'localhost' }, undefined],
    ['empty values', { HTTP_PROXY: '', https_proxy: '' }, undefined],
    ['HTTP_PROXY', { HTTP_PROXY: P1 }, { httpProxy: P1, httpsProxy: '', noProxy: '' }],
    ['HTTPS_PROXY', { HTTPS_PROXY: P1 }, { httpProxy: '', httpsProxy: P1, noProxy: '' }],
    [
      'lower-case forms',
      { http_proxy: P1, https_proxy: P2, no_proxy: 'a' },
      { httpProxy: P1, httpsProxy: P2, noProxy: 'a' },
    ],
    ['lower-case wins', { http_proxy: P1, HTTP_PROXY: P2 }, { httpProxy: P1, httpsProxy: '', noProxy: '' }],
    [
      'empty lower-case falls back',
      { http_proxy: '', HTTP_PROXY: P2 },
      { httpProxy: P2, httpsProxy: '', noProxy: '' },
    ],
    [
      'NO_PROXY kept verbatim',
      { HTTPS_PROXY: P1, NO_PROXY: '127.0.0.1, .corp:8080' },
      {
        httpProxy: '',
        httpsProxy: P1,
        noProxy: '127.0.0.1, .corp:8080',
      },
    ],
  ])('%s', (_label, env, expected) => {
    expect(readProxySettings(env)).toEqual(expected);
  });

  it('ignores inherited (prototype) variables', () => {
    const env = Object.create({ HTTPS_PROXY: P1 }) as Record<string, string>;
    expect(readProxySettings(env)).toBeUndefined();
  });

  it.each([
    'not a url',
    'proxy.corp:3128',
    'ftp://127.0.0.1:21',
    'socks5://127.0.0.1:1080',
    'http://',
    'http://pro xy:3128',
    'http://proxy\t:3128',
    'http:\\\\proxy:3128',
    'http://[::1:3128',
  ])('%j is a proxy-invalid configuration error that does not echo the value', (value) => {
    const secretValue = value.replace('proxy', 'canary-cred-7Q9proxy');
    let thrown: unknown;
    try {
      readProxySettings({ HTTPS_PROXY: secretValue });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect((thrown as ConfigurationError).code).toBe('proxy-invalid');
    expect((thrown as Error).message).toBe('The proxy configuration is invalid.');
  });

  it.each([
    ['http://127.0.0.1:3128', true],
    ['https://proxy.example.com', true],
    ['http://user:pass@proxy.example.com:8080/', true],
    ['http://[::1]:3128', true],
    ['file:///etc/passwd', false],
  ])('isUsableProxyUrl(%j) = %s', (value, expected) => {
    expect(isUsableProxyUrl(value)).toBe(expected);
  });
});

import { ConfigError } from '../config/env-readers';
import { tracingSettings } from './tracing';

describe('tracing settings (the standard OTEL_* variables)', () => {
  const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

  it('is off without an OTLP endpoint, or with the SDK disabled', () => {
    expect(tracingSettings({}, 'wharf-api')).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, 'wharf-api')).toBeUndefined();
    expect(tracingSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: 'true' }, 'wharf-api')).toBeUndefined();
  });

  it('is on with either endpoint, exporting OTLP/protobuf as the process names itself by default', () => {
    expect(tracingSettings(ENDPOINT, 'wharf-api')).toEqual({
      serviceName: 'wharf-api',
      protocol: 'http/protobuf',
    });
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }, 'wharf-worker'),
    ).toEqual({ serviceName: 'wharf-worker', protocol: 'http/protobuf' });
  });

  it('takes OTEL_SERVICE_NAME and the protocol, the traces protocol first', () => {
    const env = { ...ENDPOINT, OTEL_SERVICE_NAME: 'dock-api', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
    expect(tracingSettings(env, 'wharf-api')).toEqual({ serviceName: 'dock-api', protocol: 'http/json' });
    expect(
      tracingSettings({ ...env, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }, 'wharf-api')?.protocol,
    ).toBe('http/protobuf');
  });

  it('refuses a protocol it cannot export with, naming the variable', () => {
    const refused = () => tracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'wharf-api');
    expect(refused).toThrow(ConfigError);
    expect(refused).toThrow(
      'Invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, got "grpc"',
    );
  });
});

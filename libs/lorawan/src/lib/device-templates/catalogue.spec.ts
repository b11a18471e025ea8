import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceTemplateCatalogue } from './catalogue';

describe('DeviceTemplateCatalogue', () => {
  let dir: string;
  let n = 0;
  const file = (content: unknown) => {
    const path = join(dir, `templates-${n++}.json`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const entry = (version_ids: Record<string, string>, end_device: Record<string, unknown> = {}) => ({ version_ids, end_device });

  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'device-templates-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('the bundled catalogue', () => {
    const catalogue = DeviceTemplateCatalogue.load();

    it('finds a brand/model template for any version', () => {
      expect(catalogue.find({ brand_id: 'elsys', model_id: 'ers', hardware_version: '2.0', firmware_version: '4.1' })).toMatchObject({
        lorawan_version: 'MAC_V1_0_3',
        formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: expect.stringContaining('function decodeUplink') },
      });
    });

    it('prefers the firmware-specific template', () => {
      expect(catalogue.find({ brand_id: 'dragino', model_id: 'lht65', firmware_version: '1.7' })?.lorawan_version).toBe('MAC_V1_0_2');
      expect(catalogue.find({ brand_id: 'dragino', model_id: 'lht65', firmware_version: '1.8' })?.lorawan_version).toBe('MAC_V1_0_3');
    });

    it('carries frequency plans, frequency ranges, class C and CayenneLPP', () => {
      expect(catalogue.find({ brand_id: 'milesight', model_id: 'em300-th-868m', hardware_version: '3.0' })).toMatchObject({
        frequency_plan_id: 'EU_863_870_TTN',
        min_frequency: '863000000',
        max_frequency: '870000000',
      });
      expect(catalogue.find({ brand_id: 'dragino', model_id: 'lt-22222-l' })).toMatchObject({ supports_class_c: true, supports_join: true });
      expect(
        catalogue.find({ brand_id: 'the-things-industries', model_id: 'generic-node-sensor-edition', hardware_version: '1.1', firmware_version: '1.0' })
          ?.formatters,
      ).toEqual({
        up_formatter: 'FORMATTER_CAYENNELPP',
        up_formatter_parameter: '',
        down_formatter: 'FORMATTER_CAYENNELPP',
        down_formatter_parameter: '',
      });
    });

    it('has no fallback: unknown models, partial identifiers and unmatched versions find nothing', () => {
      expect(catalogue.find(undefined)).toBeUndefined();
      expect(catalogue.find({ brand_id: 'dragino' })).toBeUndefined();
      expect(catalogue.find({ model_id: 'lht65' })).toBeUndefined();
      expect(catalogue.find({ brand_id: 'dragino', model_id: 'lht52' })).toBeUndefined();
      expect(catalogue.find({ brand_id: 'milesight', model_id: 'em300-th-868m', hardware_version: '2.0' })).toBeUndefined();
      expect(catalogue.find({ brand_id: 'the-things-industries', model_id: 'generic-node-sensor-edition', hardware_version: '1.1' })).toBeUndefined();
    });

    it('hands out read-only profiles', () => {
      const profile = catalogue.find({ brand_id: 'elsys', model_id: 'ers' });
      expect(Object.isFrozen(profile)).toBe(true);
    });
  });

  describe('precedence', () => {
    const catalogue = () =>
      DeviceTemplateCatalogue.load(
        file({
          templates: [
            entry({ brand_id: 'acme', model_id: 'sensor' }, { lorawan_version: 'MAC_V1_0' }),
            entry({ brand_id: 'acme', model_id: 'sensor', firmware_version: '2' }, { lorawan_version: 'MAC_V1_0_1' }),
            entry({ brand_id: 'acme', model_id: 'sensor', hardware_version: 'B' }, { lorawan_version: 'MAC_V1_0_2' }),
            entry({ brand_id: 'acme', model_id: 'sensor', hardware_version: 'B', firmware_version: '2' }, { lorawan_version: 'MAC_V1_0_3' }),
          ],
        }),
      );

    it.each([
      [{}, 'MAC_V1_0'],
      [{ hardware_version: 'A', firmware_version: '1' }, 'MAC_V1_0'],
      [{ hardware_version: '', firmware_version: '' }, 'MAC_V1_0'],
      [{ firmware_version: '2' }, 'MAC_V1_0_1'],
      [{ hardware_version: 'A', firmware_version: '2' }, 'MAC_V1_0_1'],
      [{ hardware_version: 'B' }, 'MAC_V1_0_2'],
      [{ hardware_version: 'B', firmware_version: '1' }, 'MAC_V1_0_2'],
      [{ hardware_version: 'B', firmware_version: '2' }, 'MAC_V1_0_3'],
    ])('versions %j → %s', (versions, expected) => {
      expect(catalogue().find({ brand_id: 'acme', model_id: 'sensor', ...versions })?.lorawan_version).toBe(expected);
    });

    it('needs brand and model to match', () => {
      expect(catalogue().find({ brand_id: 'acme', model_id: 'other', hardware_version: 'B', firmware_version: '2' })).toBeUndefined();
      expect(catalogue().find({ brand_id: 'other', model_id: 'sensor' })).toBeUndefined();
    });
  });

  it('lets an extra file replace bundled entries with the same version identifiers and keep the others', () => {
    const catalogue = DeviceTemplateCatalogue.load(
      file({ templates: [entry({ brand_id: 'dragino', model_id: 'lht65' }, { lorawan_version: 'MAC_V1_0_4', frequency_plan_id: 'US_902_928_FSB_2' })] }),
    );
    expect(catalogue.find({ brand_id: 'dragino', model_id: 'lht65' })).toEqual({ lorawan_version: 'MAC_V1_0_4', frequency_plan_id: 'US_902_928_FSB_2' });
    expect(catalogue.find({ brand_id: 'dragino', model_id: 'lht65', firmware_version: '1.7' })?.lorawan_version).toBe('MAC_V1_0_2');
    expect(catalogue.find({ brand_id: 'elsys', model_id: 'ers' })).toBeDefined();
  });

  describe('fails fast on an invalid file, naming file and entry', () => {
    it.each([
      ['a missing templates array', { entries: [] }, ': must be a JSON object with a "templates" array'],
      ['a non-object entry', { templates: ['x'] }, ': templates[0]: must be an object'],
      ['an unknown entry field', { templates: [{ ...entry({ brand_id: 'acme', model_id: 'sensor' }), profile: {} }] }, ': templates[0].profile: unknown field'],
      ['a missing model_id', { templates: [entry({ brand_id: 'acme' })] }, ': templates[0].version_ids.model_id: value is required'],
      [
        'an invalid brand_id',
        { templates: [entry({ brand_id: 'ACME', model_id: 'sensor' })] },
        ': templates[0].version_ids.brand_id: value does not match regex pattern',
      ],
      [
        'an empty firmware_version',
        { templates: [entry({ brand_id: 'acme', model_id: 'sensor', firmware_version: '' })] },
        ': templates[0].version_ids.firmware_version: must not be empty',
      ],
      [
        'an unknown frequency plan',
        { templates: [entry({ brand_id: 'acme', model_id: 'a1b' }), entry({ brand_id: 'acme', model_id: 'sensor' }, { frequency_plan_id: 'EU_868' })] },
        ': templates[1].end_device.frequency_plan_id: value must be one of the known frequency plans',
      ],
      [
        'a missing end_device',
        { templates: [{ version_ids: { brand_id: 'acme', model_id: 'sensor' } }] },
        ': templates[0].end_device: a device profile must be a JSON object',
      ],
      [
        'a duplicate entry',
        { templates: [entry({ brand_id: 'acme', model_id: 'sensor' }), entry({ brand_id: 'acme', model_id: 'sensor' })] },
        ': templates[1].version_ids: same as templates[0]',
      ],
    ])('%s', (_case, content, message) => {
      const path = file(content);
      expect(() => DeviceTemplateCatalogue.load(path)).toThrow(`device template catalogue ${path}${message}`);
    });

    it('unreadable or not JSON', () => {
      const missing = join(dir, 'missing.json');
      expect(() => DeviceTemplateCatalogue.load(missing)).toThrow(`device template catalogue ${missing}: cannot be read`);
      const broken = file('{"templates": [');
      expect(() => DeviceTemplateCatalogue.load(broken)).toThrow(`device template catalogue ${broken}: not valid JSON`);
    });
  });
});

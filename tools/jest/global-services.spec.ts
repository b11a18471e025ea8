import { SERVER_PROGRAMS } from '@lorawan/testing';
import { missingError } from './global-services';

describe('the test run’s own servers', () => {
  it('names a missing program, its Debian package, the variable that gives its path and the one that skips it', () => {
    const message = missingError('nats', 'TEST_NATS_URL', [{ path: '/usr/sbin/nats-server', package: 'nats-server', env: 'TEST_NATS_SERVER' }])?.message;
    expect(message).toContain('/usr/sbin/nats-server is not installed');
    expect(message).toContain('apt-get install nats-server');
    expect(message).toContain('TEST_NATS_SERVER');
    expect(message).toContain('set TEST_NATS_URL to a server that is running');
  });

  it('names both MariaDB programs with one package', () => {
    const message = missingError('mariadb', 'TEST_MYSQL_URL', [...SERVER_PROGRAMS.mariadb])?.message;
    expect(message).toContain(`${SERVER_PROGRAMS.mariadb[0].path} and ${SERVER_PROGRAMS.mariadb[1].path} are not installed`);
    expect(message).toContain('`apt-get install mariadb-server`');
  });

  it('has nothing to say when the programs are there', () => {
    expect(missingError('nats', 'TEST_NATS_URL', [])).toBeUndefined();
  });
});

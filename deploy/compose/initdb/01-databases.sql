-- Runs once, on first start of the MySQL container (empty data volume).
-- One database per component (no component reads another's tables), each with its own user.
-- Passwords here must match the *_DATABASE_URL values in docker-compose.yml.
CREATE DATABASE IF NOT EXISTS `is` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE DATABASE IF NOT EXISTS `js` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE DATABASE IF NOT EXISTS `ns` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE DATABASE IF NOT EXISTS `as` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

CREATE USER IF NOT EXISTS 'is'@'%' IDENTIFIED BY 'is-password';
CREATE USER IF NOT EXISTS 'js'@'%' IDENTIFIED BY 'js-password';
CREATE USER IF NOT EXISTS 'ns'@'%' IDENTIFIED BY 'ns-password';
CREATE USER IF NOT EXISTS 'as'@'%' IDENTIFIED BY 'as-password';

GRANT ALL PRIVILEGES ON `is`.* TO 'is'@'%';
GRANT ALL PRIVILEGES ON `js`.* TO 'js'@'%';
GRANT ALL PRIVILEGES ON `ns`.* TO 'ns'@'%';
GRANT ALL PRIVILEGES ON `as`.* TO 'as'@'%';
FLUSH PRIVILEGES;

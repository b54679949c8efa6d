-- Every lab keeps its tables in its own database, tasks_<lab> (tasks_lab11, ...),
-- so labs running in parallel never share rows. The app user may create and use them.
GRANT ALL PRIVILEGES ON `tasks\_%`.* TO 'tasks'@'%';
FLUSH PRIVILEGES;

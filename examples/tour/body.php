$name = trim($name);

return 'Hello ' . $name;

def slugify(text):
    return text.lower()


def shout(text):
    return text.upper()

package core

const sysUserfaultfd = 282
